package tether

import (
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
// The zero Output stands for no value (null).
type Output[T any] = sdk.Output[T]

// Val makes an Output of a value. The value may hold Outputs or tokens
// inside it (a struct or map with lazy fields): the result then waits for
// them, which makes Val a way to gather several Outputs into one.
func Val[T any](v T) Output[T] {
	return sdk.Val[T](v)
}

// Apply makes an Output from o by calling f with o's value once it is
// known, during plan when it already is, otherwise during apply. f may be
// called more than once, and concurrently with other functions, and must
// not declare resources; keep it free of side effects. A sensitive input
// makes a sensitive result.
func Apply[T, U any](o Output[T], f func(T) U) Output[U] {
	return sdk.Apply[T, U](o, f)
}

// Apply2 is Apply over two Outputs.
func Apply2[A, B, U any](a Output[A], b Output[B], f func(A, B) U) Output[U] {
	return sdk.Apply2[A, B, U](a, b, f)
}

// Apply3 is Apply over three Outputs.
func Apply3[A, B, C, U any](a Output[A], b Output[B], c Output[C], f func(A, B, C) U) Output[U] {
	return sdk.Apply3[A, B, C, U](a, b, c, f)
}

// All gathers Outputs of one type into an Output of a slice, known once
// all of them are.
func All[T any](outputs ...Output[T]) Output[[]T] {
	return sdk.All[T](outputs...)
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
func Secret[T any](v T) Output[T] {
	return sdk.Secret[T](v)
}

// Attr returns the attribute name of a resource, or of a data source read
// in output form, or the output name of a module call, as an Output. Generated bindings call it from their
// getters; programs can use it for an attribute the bindings lack.
func Attr[T any](r Dependable, name string) Output[T] {
	return sdk.Attr[T](r, name)
}

// Sprintf is fmt.Sprintf returning an Output: formatting Outputs (or
// their String tokens) yields a string that waits for them.
func Sprintf(format string, args ...any) Output[string] {
	return sdk.Sprintf(format, args...)
}
