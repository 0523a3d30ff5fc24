// Package tether is the Tether Go SDK: infrastructure declared in typed Go
// code, planned and applied by the same engine, state and command line as
// Tether's HCL configurations.
//
// A program calls Main with a function that declares resources in a
// Stack, using bindings generated from provider schemas by `tether gen`
// (package builtin holds those of the built-in provider):
//
//	func main() {
//		tether.Main(func(s *tether.Stack) error {
//			suffix := builtin.NewRandom(s, "suffix", builtin.RandomArgs{Length: tether.Int(6)})
//			builtin.NewFile(s, "hello", builtin.FileArgs{
//				Path:    "out/hello.txt",
//				Content: fmt.Sprintf("hello %s\n", suffix.Result()),
//			})
//			return nil
//		})
//	}
//
// `go run . up` then deploys it, like `tether up` on a folder of *.tf files.
//
// Required fields of an args struct are plain values. An optional string
// or bool is a pointer, nil when unset: String and Bool make one, so that
// HTTP: tether.Bool(false) sends false over a provider's default of true.
// Numbers are Number, exact at any size, whose zero value is unset; Int,
// Uint, Float, BigNumber and ParseNumber make one.
//
// Attribute getters return Output values, known once the resource is
// planned or created. An Output's String form is a token that can be
// concatenated or formatted into any string argument; Apply, Apply2,
// Apply3 and All compute new Outputs with typed functions. Every use makes
// the user wait for the values it comes from. DependsOn orders work that
// values do not show. Components (NewComponent) group resources into
// scopes of their own.
//
// A Reference describes where a value is without holding it:
// EnvReference, FileReference, or a kind of the program's own
// (RegisterReference, NewReference). The engine resolves it in memory
// right before the provider call that needs it; everything else shows its
// description. It can only be passed on whole; using it in an operation is
// an error at the program's line. Secret marks a value the program holds
// as sensitive through every use, and the engine seals it in state.
package tether
