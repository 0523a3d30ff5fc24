package tether

import (
	"fmt"

	"github.com/tetherhq/tether/internal/sdk"
)

// Output is a value of type T that is not known while the program runs:
// an attribute of a resource, known once the resource is planned or
// created, or something computed from such values with Apply and All.
//
// An Output goes wherever the value will be needed: into another
// resource's arguments (a string field takes its String form; an
// attribute of any type takes the Output itself, or use Set), into
// Stack.Export, or into fmt.Sprintf and string concatenation through
// String. Each such use makes the user wait for the values the Output
// comes from, so Tether orders the work from them.
//
// The zero Output stands for no value (null): given as an argument it
// leaves the argument unset, and its String is "". An Output computed
// from a sensitive value (Secret, a sensitive attribute) is sensitive
// itself, and so is everything computed from it. An Output whose value
// is not known until apply is unknown in the plan, and so is whatever is
// computed from it.
type Output[T any] struct {
	// output is the implementation's Output. Its methods are promoted
	// so that the implementation recognises an Output whatever its T;
	// the exported ones are redeclared below, documented.
	output[T]
}

type output[T any] = sdk.Output[T]

// String returns a token that stands for the value inside a string. It
// can be concatenated, formatted with fmt.Sprintf and passed in any string
// argument; Tether puts the value (converted to a string) in its place
// once it is known, and whoever uses the string waits for it. A token
// means nothing outside a resource argument or an export: written to a
// file or compared while the program runs, it is just text. In code
// running in a deployed function or test, String is the value itself
// (see Get). The zero Output's String is "".
func (o Output[T]) String() string { return o.output.String() }

// Format makes fmt write the String token for %s and %v. Any other verb,
// or a width or precision, cannot be applied to a value that is not known
// yet; it writes a marker that the SDK reports, at the call that is given
// the string, as a mistake. In code running in a deployed function or
// test, Format formats the value itself.
func (o Output[T]) Format(f fmt.State, verb rune) { o.output.Format(f, verb) }

// Get returns the value of an Output in code that runs in a deployed
// function or test (a closure given to a router, tester or function):
// there, an Output of a captured property, such as router.URL(), holds
// the value the deployment passed in the environment. While the program
// deploys, no value is known yet and Get returns an error; use the Output
// itself, or its String form, in resource arguments instead.
//
// A captured property the closure was not deployed with (its variable is
// missing) is an error such as
//
//	The 'url' of the '<tether_router>main' cannot be found.
func (o Output[T]) Get() (T, error) { return o.output.Get() }

// implOutputs is os as the implementation's Outputs.
func implOutputs[T any](os []Output[T]) []sdk.Output[T] {
	out := make([]sdk.Output[T], len(os))
	for i, o := range os {
		out[i] = o.output
	}
	return out
}

// Val makes an Output of a value. The value may hold Outputs or tokens
// inside it (a struct or map with lazy fields): the result then waits for
// them, which makes Val a way to gather several Outputs into one.
func Val[T any](v T) Output[T] {
	return Output[T]{sdk.Val[T](v)}
}

// Apply makes an Output from o by calling f with o's value once it is
// known, during plan when it already is, otherwise during apply. f may be
// called more than once, and concurrently with other functions, and must
// not declare resources; keep it free of side effects.
//
// The contract, input by input (Apply2, Apply3 and All keep it for each
// of theirs):
//   - unknown (not known until apply, in whole or in part): f is not
//     called, and the result is unknown too;
//   - null (the zero Output, a null attribute): f gets T's zero value;
//   - sensitive: f gets the plain value, and the result is sensitive;
//   - a Reference: an error at this line, since a reference's value is
//     never in the program (pass the Reference on whole instead).
//
// A panic in f is an error at the line that panicked, naming this call; a
// result that does not fit U, or that holds an Output, is an error at
// this line, and the plan or apply that needed the value fails.
func Apply[T, U any](o Output[T], f func(T) U) Output[U] {
	return Output[U]{sdk.Apply[T, U](o.output, f)}
}

// Apply2 is Apply over two Outputs.
func Apply2[A, B, U any](a Output[A], b Output[B], f func(A, B) U) Output[U] {
	return Output[U]{sdk.Apply2[A, B, U](a.output, b.output, f)}
}

// Apply3 is Apply over three Outputs.
func Apply3[A, B, C, U any](a Output[A], b Output[B], c Output[C], f func(A, B, C) U) Output[U] {
	return Output[U]{sdk.Apply3[A, B, C, U](a.output, b.output, c.output, f)}
}

// All gathers Outputs of one type into an Output of a slice, known once
// all of them are.
func All[T any](outputs ...Output[T]) Output[[]T] {
	return Output[[]T]{sdk.All[T](implOutputs(outputs)...)}
}

// Secret makes an Output of a value that must stay secret: it is shown as
// (sensitive value) in plans, in `up` and in `tether output`, and so is
// every value computed from it (a string it is formatted into, the result
// of Apply, the attribute of a resource it is given to). The engine seals
// any resource object or output holding it in state (AES-256-GCM under
// the state's key). Export it with Sensitive().
//
// Unlike a Reference, the value is in the program: it came from
// somewhere the program read. Where it can be read by the engine itself
// (an environment variable, a file), a reference keeps it out of state
// altogether.
//
// v may hold Outputs: the secret waits for them, and is unknown while
// they are. A Reference in v stays a reference, resolved as any other.
// A v that does not convert to T's Terraform type is an error at this
// line where the secret is used.
func Secret[T any](v T) Output[T] {
	return Output[T]{sdk.Secret[T](v)}
}

// Attr returns the attribute name of a resource, or of a data source read
// in output form, or the output name of a module call, as an Output.
// Generated bindings call it from their getters; programs can use it for
// an attribute the bindings lack.
//
// The Output is unknown in a plan until the resource is planned with the
// value, null where the provider leaves the attribute null, and sensitive
// where the schema marks the attribute so. A name the type's schema does
// not have, a component, or a nil resource is an error reported at this
// line where the Output is used.
func Attr[T any](r Dependable, name string) Output[T] {
	return Output[T]{sdk.Attr[T](r, name)}
}

// Sprintf is fmt.Sprintf returning an Output: formatting Outputs (or
// their String tokens) yields a string that waits for them.
func Sprintf(format string, args ...any) Output[string] {
	return Output[string]{sdk.Sprintf(format, args...)}
}
