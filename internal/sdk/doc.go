// Package sdk implements the Go SDK whose public face is the module root,
// package tether: it turns what a Go program declares into a
// configuration (internal/config) for the engine, and back into values the
// program reads.
//
// The root package holds only what a program calls, and its functions
// call this package's of the same name. Its types are of three kinds:
// aliases of this package's (options, Scope, Dependable, Resource,
// Number, Reference, Error); its own, holding this package's value
// (Stack holds a StackScope, Output embeds an Output, T holds a *T); and
// structs of the same fields as this package's, converted at the call
// (Type, ModuleSource, AWS, Local, PG, LocalBackend). This package never
// imports the root: where it must know the program's function (Main's,
// a test's), the root passes it beside the wrapper (Program, TestFunc).
// Frames of the root's functions are skipped where this package finds
// the program's line (see frames in pos.go), so a diagnostic points at
// the program's call whichever way it came in.
//
// What lives here, by file:
//   - stack.go, resource.go, module.go, resource_fields.go: the tree of
//     constructs a program declares, their arguments and options, and the
//     configuration sealed from them;
//   - output.go, token.go, reference.go, number.go, convert*.go: lazy
//     values (Output, Reference, Secret), the tokens that carry them
//     through strings, and conversion between Go values and cty;
//   - closure.go, capture.go, closure_opaque.go, deploy.go, runclosure.go,
//     closuretest.go, arch.go: the program's functions handed to
//     infrastructure (closures), what they read (with internal/deduce),
//     how they are deployed, and the program run as one of them;
//   - run.go, synth.go, synth_apply.go, platform.go, backend.go: the
//     command line a program is (internal/cli), and synth.
//
// It must not import the root package: the root imports it.
package sdk
