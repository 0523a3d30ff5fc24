package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Type describes a resource type, data source or provider to the SDK.
// Generated bindings declare one for each; programs do not need to.
type Type struct {
	// Provider is the provider's local name, tether.
	Provider string
	// Source is the provider's source address, registry.terraform.io/tetherhq/tether:
	// the provider the program installs and runs. Empty means the local
	// name's implied source, hashicorp/NAME, as in Terraform.
	Source string
	// Version is the provider version the bindings were generated from;
	// a program installs that version unless the lock file holds another.
	Version string
	// Name is the type's schema name, tether_file.
	Name string
	// Func is the Go function that declares it, builtin.NewFile, and
	// OutputFunc a data source's output form, builtin.GetFileOutput.
	Func       string
	OutputFunc string
}

// impl is t as the implementation takes it: the same struct.
func (t *Type) impl() *sdk.Type { return (*sdk.Type)(t) }

// Resource is embedded in the resource types of generated bindings. It
// identifies one resource of a stack.
type Resource = sdk.Resource

// DataSource is embedded in the result types of output-form data source
// reads in generated bindings.
type DataSource = sdk.DataSource

// ResourceOption changes how a resource is declared.
type ResourceOption = sdk.ResourceOption

// InvokeOption changes how a data source is read.
type InvokeOption = sdk.InvokeOption

// ResourceOrInvokeOption is an option for both.
type ResourceOrInvokeOption = sdk.ResourceOrInvokeOption

// DependsOn makes a resource, a data source read in output form, or a
// module call wait for others it takes no value from: they are created,
// updated or read first. A component or a module call stands for
// everything in it. The direct form of a data source cannot wait, so it
// rejects DependsOn.
//
// A nil resource, or one of another stack, is an error at this line; one
// whose declaration failed (its error is reported already) is left out.
func DependsOn(deps ...Dependable) DependsOnOption {
	return sdk.DependsOn(deps...)
}

// Set sets the argument name (its schema name, such as delay_ms) to value,
// over what the args struct says. It is for what a typed field cannot
// hold: a lazy value of a type other than string or tether.Number (an
// Output[bool], an Output[[]string] for a list; a number field takes an
// Output[tether.Number] itself). A required field it gives may be
// left unset in the args struct. Zero values need no Set: an optional
// field takes them (tether.Bool(false), tether.Int(0)). Set is an
// option, passed after the args struct; given as the value of a field
// (an any field compiles with it), it is an error at that call.
func Set(name string, value any) ResourceOrInvokeOption {
	return sdk.Set(name, value)
}

// PreventDestroy makes any plan that would destroy the resource fail.
func PreventDestroy() ResourceOption {
	return sdk.PreventDestroy()
}

// CreateBeforeDestroy makes a replacement create the new object before
// destroying the old one.
func CreateBeforeDestroy() ResourceOption {
	return sdk.CreateBeforeDestroy()
}

// Declare declares a resource of type t, with the given id, in scope,
// its arguments read from args (a generated args struct), and makes r
// stand for it. Generated constructors call it directly: messages point
// at the line that called the constructor, two frames up.
//
// The contract, argument by argument:
//   - a nil pointer, a nil NumberInput or the zero Number is unset
//     (null): the provider's default applies, and a required argument
//     left so is an error at the call;
//   - an Output, or a string holding its token (its String, fmt.Sprintf
//     with Outputs), makes the resource wait for what it comes from; the
//     argument is unknown in the plan until that value is known;
//   - a sensitive value (Secret, a sensitive attribute, or a value
//     computed from one) stays sensitive, and the engine seals the
//     object in state;
//   - a Reference is resolved in memory right before the provider call
//     that needs it; elsewhere it shows its description.
//
// A nil scope, an id declared twice in one scope (both lines are named),
// a wholly known argument the schema rejects, or a call made after the
// program's function returned is an error at the call, and the command
// fails; r stays safe to use.
func Declare(scope Scope, r *Resource, t *Type, id string, args any, opts ...ResourceOption) {
	sdk.Declare(scope, r, t.impl(), id, args, opts...)
}

// Read declares an output-form data source read. Generated output-form
// functions call it directly, as constructors call Declare.
func Read(scope Scope, d *DataSource, t *Type, id string, args any, opts ...InvokeOption) {
	sdk.Read(scope, d, t.impl(), id, args, opts...)
}

// ConfigureProvider sets a provider's configuration for the whole stack.
// Generated NewProvider functions call it.
func ConfigureProvider(s *Stack, t *Type, args any) {
	sdk.ConfigureProvider(s.impl(), t.impl(), args)
}

// Invoke reads a data source now, while the program runs, into res.
// Generated direct-form functions call it directly, as constructors call
// Declare.
//
// It cannot wait: an argument holding an Output, or DependsOn, is an
// error naming the output form (Read), which waits. A Reference given
// whole is resolved for the read, and the result shows its description
// where the provider echoes its value. A nil scope, or a call made after
// the program's function returned, is an error. Every error Invoke
// returns is an *Error at the line that called the direct-form function.
func Invoke(scope Scope, t *Type, args any, res any, opts ...InvokeOption) error {
	return sdk.Invoke(scope, t.impl(), args, res, opts...)
}
