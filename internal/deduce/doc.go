// Package deduce finds out, before a Go program deploys, which captured
// properties each of its closures reads at run time.
//
// A closure handed to infrastructure (a router's handler, a tester's test)
// runs later, in a function started from the same program, where the
// properties of other resources (a router's url) reach it only as
// environment variables. Which variables it needs, and so which resources
// its function must wait for, is decided here from the program's source:
// the closure reads a property when it can reach a call of the SDK's
// tether.Attr (every getter of the generated bindings is one) on a
// resource, directly or through functions and methods of the program, of
// other packages of its module, of closures stored in variables, fields,
// slices and maps.
//
// The analysis works on SSA form (golang.org/x/tools/go/ssa) of the
// program's module and of the bindings it imports, loaded from source by
// golang.org/x/tools/go/packages; everything else comes from export data.
// It follows values backwards from each getter's receiver to the calls
// that declared the resource (builtin.NewRouter(...) at main.go:12), which
// the SDK then matches with the resources the program declared there:
//
//   - a call to a function of the module is followed into its returns,
//     with its parameters bound to the arguments of that very call;
//   - a variable captured by a closure holds, when the closure runs, what
//     was stored last before the function that owns it returned, so a
//     variable reassigned before use is read at its final value;
//   - fields, slice elements and map entries are followed to the stores
//     into the same object; a map or slice read with a key that is not a
//     constant chooses the resource at run time, which is refused;
//   - calls through interfaces and function values go to every function
//     the value may hold; reflection cannot be followed and is refused;
//   - what a closure captures is followed back to the getters it was
//     computed from (captures.go), through a receive to every send on a
//     channel of that element type, and through a call of a function
//     value to what it returns; a captured value that comes from a call
//     through reflection is reported as Opaque, for the SDK to decide
//     whether a value made at deploy could reach the closure there;
//   - one declaration may make several resources (a component constructor
//     called twice, a loop): an Origin then carries the calls of the
//     program that returned the resource (Via), and whether the closure
//     reads it from a local variable made afresh with it (Latest), which
//     let the SDK pick the resource of the closure's own call or
//     iteration.
//
// What the analysis cannot decide is reported as a Problem naming the
// expression and why; the SDK turns it into an error at deploy unless the
// program declares the property with tether.Uses.
//
// The analysis is in four files by what it follows: values.go holds the
// abstract values, flow.go the analyzer and the step from a value to what
// it may hold, calls.go calls (into a callee's returns, out to a
// parameter's arguments), stores.go memory (variables, fields, elements,
// maps).
package deduce
