package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Stack is the root of a program's tree of constructs: the resources,
// data sources and components declared in it, and the values it exports.
// Main hands one to the program's function; resources declared directly
// in it get addresses like tether_file.a, as in a root module.
type Stack = sdk.Stack

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
