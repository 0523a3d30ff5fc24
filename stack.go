package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Stack is the root of a program's tree of constructs: the resources,
// data sources and components declared in it, and the values it exports.
// Main hands one to the program's function; resources declared directly
// in it get addresses like tether_file.a, as in a root module.
//
// A Stack is used while the program's function runs. A declaration made
// with it after the function returned (from a goroutine) is an error at
// that line, reported by the command that is running, and a nil *Stack is
// an error at the call ("Nil scope"); neither panics.
type Stack struct {
	// stackScope holds the implementation's stack and makes a Stack a
	// Scope. It has no exported methods.
	stackScope
}

type stackScope = sdk.StackScope

// impl is the implementation's stack; nil for a nil Stack, which it
// reports at the call.
func (s *Stack) impl() *sdk.Stack {
	if s == nil {
		return nil
	}
	return sdk.StackOf(s.stackScope)
}

// Export makes value an output of the stack, shown after `up` and by
// `tether output`. value is a plain value, an Output, or a value holding
// Outputs; a nil value or a zero Output exports null, and an Output not
// known until apply shows (known after apply) in a plan.
//
// A value that holds sensitive values (a Secret, a sensitive attribute,
// or a value computed from one) must be exported with Sensitive(), or the
// command fails at this line; then plans, `up` and `tether output` hide
// it. A Reference is exported as its description, never its value.
//
// An invalid name, a name exported twice, or a call made after the
// program's function returned is an error at the call.
func (s *Stack) Export(name string, value any, opts ...ExportOption) {
	s.impl().Export(name, value, opts...)
}

// Workspace is the name of the workspace the command runs in, what
// terraform.workspace is in HCL: "default" unless `tether workspace
// select` or TF_WORKSPACE chose another. A program uses it to keep the
// workspaces' objects apart (file names, prefixes). The closures it
// deploys see the same name when they run.
func (s *Stack) Workspace() string {
	return s.impl().Workspace()
}

// Backend chooses where the program's state is kept (LocalBackend unless
// a program says otherwise). It is called once, while the program's
// function runs, and the same way on every run: the choice is read each
// time the program runs a command that loads it (init, plan, up, destroy,
// import, console, graph) and compared with what init recorded. Commands
// that do not run the program's function (workspace, state, output, show)
// use the backend init recorded. A second call, a nil backend, or a call
// made after the function returned is an error at the call.
func (s *Stack) Backend(b Backend) {
	var ib sdk.Backend
	if b != nil {
		ib = b.impl()
	}
	s.impl().Backend(ib)
}

// Platform chooses where the stack's functions, routers and stores are
// deployed (Local unless a program says otherwise). It is called once,
// while the program's function runs; a second call, or one made after the
// function returned, is an error at the call.
func (s *Stack) Platform(p Platform) {
	var ip sdk.Platform
	if p != nil {
		ip = p.impl()
	}
	s.impl().Platform(ip)
}

// Scope is where resources, data sources and components are declared: a
// *Stack, or a component (anything embedding *Component).
type Scope = sdk.Scope

// Dependable is what DependsOn accepts: a resource, a data source read in
// output form, or a component (waiting for a component waits for
// everything in it).
type Dependable = sdk.Dependable

// Component is a scope of its own inside a stack, for a group of resources
// that belong together. Write a component as a Go type that embeds
// *Component and declares its resources with itself as the scope:
//
//	type Site struct {
//		*tether.Component
//		URL tether.Output[string]
//	}
//
//	func NewSite(scope tether.Scope, id string) *Site {
//		site := &Site{Component: tether.NewComponent(scope, id)}
//		page := builtin.NewFile(site, "index", builtin.FileArgs{...})
//		site.URL = page.Path()
//		return site
//	}
//
// A resource declared in component site of the stack has the address
// module.site.tether_file.index, as if the component were a module.
type Component = sdk.Component

// NewComponent declares a component with the given id, which must be
// unique within scope.
func NewComponent(scope Scope, id string) *Component {
	return sdk.NewComponent(scope, id)
}

// ExportOption changes how a value is exported.
type ExportOption = sdk.ExportOption

// Sensitive hides an exported value: plans, `up` and `tether output` show
// (sensitive value) instead.
func Sensitive() ExportOption {
	return sdk.Sensitive()
}
