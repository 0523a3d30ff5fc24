package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Reference describes where a value of type T is (an environment
// variable, a file, a secret store) without holding it. T is a primitive
// (string, a number, bool) or a struct. The program never sees the
// value: Tether resolves the reference inside the engine, in memory,
// right before the provider call that needs it, and plans, state, output,
// graphs and errors show its description, (reference env DB_PASSWORD).
//
// A reference can only be passed on whole:
//
//   - in a string argument of generated bindings, as its String form:
//     builtin.FileArgs{Content: ref.String()};
//   - as the Reference itself in an argument of type any, anywhere in its
//     value, or with tether.Set("name", ref);
//   - as an argument of another reference (EnvReference(FileReference(...)),
//     or a field declared as a Reference in a reference kind of your own);
//   - to Stack.Export, which shows its description.
//
// Resource arguments take references to strings, since the engine keeps
// the description in place of the value; a reference to another type is
// an argument of a reference that makes a string of it, and a reference
// to a struct stands for the struct by its fields (Fields).
//
// Anything that would need the value in the program is refused: a
// reference's String inside a longer string (concatenation, fmt.Sprintf),
// formatted with a verb other than %s and %v, passed to tether.Apply or
// to a data source, or in a field that does not declare reference support.
// Each is an error at the program's line naming the argument. References
// cannot be compared with ==; the compiler says so.
//
// The zero Reference stands for no value (null).
//
// Reference is the implementation's type under this name (an alias); go
// doc shows its methods (String, Format, Description, Resolve, Fields)
// under github.com/tetherhq/tether/internal/sdk.Reference.
type Reference[T any] = sdk.Reference[T]

// Plain makes a Reference that holds a known value, for a field or an
// argument declared as a Reference that is given a plain value. Its value
// is shown as written, in descriptions and plans alike.
func Plain[T any](v T) Reference[T] {
	return sdk.Plain[T](v)
}

// StringOrReference is a string, or a reference to one: the argument of
// EnvReference and FileReference, so that references compose.
type StringOrReference = sdk.StringOrReference

// EnvReference is a reference to the environment variable name, read by
// the process that runs the engine when a provider call needs it. An
// unset or empty variable fails that resource's operation, naming the
// variable and the resource. name may itself be a reference, resolved
// first: EnvReference(FileReference("name.txt")) reads the variable
// named in name.txt.
func EnvReference[S StringOrReference](name S) Reference[string] {
	return sdk.EnvReference[S](name)
}

// FileReference is a reference to the content of the file at path
// (without trailing newlines), relative to the folder the command runs
// in. path may itself be a reference, resolved first.
func FileReference[S StringOrReference](path S) Reference[string] {
	return sdk.FileReference[S](path)
}

// Resolver is implemented by the Go types that define kinds of reference
// of their own (see RegisterReference): the type's exported fields are
// the reference's arguments, and Resolve obtains the value from them.
type Resolver[T any] = sdk.Resolver[T]

// RegisterReference makes the Go type R a kind of reference named kind,
// resolving to a T (a primitive or a struct). R is a struct, or a pointer
// to one, whose exported fields are the reference's arguments, shown in
// its description: plain values, or references in fields declared as
// tether.Reference[F], which is how a kind declares that it accepts
// references. Make references of the kind with NewReference.
//
// When a provider call needs the value, the engine resolves the
// arguments that are references first, then calls R's Resolve with a
// copy of the arguments in which those fields hold their values (read
// them with the field's Resolve method). Resolve runs in the process that
// runs the engine, may run more than once and concurrently, and its
// result is never stored or shown.
//
//	type Vault struct {
//		Path  string
//		Token tether.Reference[string]
//	}
//
//	func (v Vault) Resolve(ctx context.Context) (string, error) {
//		token, err := v.Token.Resolve(ctx)
//		...
//	}
//
//	func init() { tether.RegisterReference[Vault]("vault") }
//
// Call it before Main, typically from init. Mistakes (an invalid or taken name, an unsuitable type) are reported by
// Main, at the line that registered.
func RegisterReference[R Resolver[T], T any](kind string) {
	sdk.RegisterReference[R, T](kind)
}

// NewReference makes a reference of the kind registered for R (see
// RegisterReference), with args as its arguments. A type that is not
// registered, an argument holding a lazy value, or a reference in a field
// not declared as tether.Reference is an error at the line that uses the
// reference.
func NewReference[R Resolver[T], T any](args R) Reference[T] {
	return sdk.NewReference[R, T](args)
}
