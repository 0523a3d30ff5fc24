package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// ModuleCall is a Terraform module called from a program: a module block
// of the program's configuration. Everything the module declares is
// planned and applied with the program's own resources, at addresses
// under module.ID, as Terraform gives them (module.net.tether_file.a).
//
// A ModuleCall is Dependable: tether.DependsOn(call) waits for everything
// in the module. Its outputs are read with tether.Attr, or with the
// getters of generated module bindings (tether gen --module).
type ModuleCall = sdk.ModuleCall

// ModuleSource describes a module to the SDK. Generated module bindings
// declare one; tether.Module makes one from its arguments.
type ModuleSource struct {
	// Source is the module's source address as a module block writes it:
	// ./modules/net, a folder relative to the program's folder, a
	// registry address, git::URL or an archive URL.
	Source string
	// Version is the version constraint of a module from a registry;
	// empty for a local folder.
	Version string
	// Generated is the version of a registry module that generated
	// bindings were made from (tether gen --module); empty otherwise.
	Generated string
	// Func is the Go function that calls it (net.NewNet), for messages.
	Func string
}

// ModuleOption changes how a module is called.
type ModuleOption = sdk.ModuleOption

// DependsOnOption is what DependsOn returns: an option of resources, of
// data sources read in output form, and of module calls.
type DependsOnOption = sdk.DependsOnOption

// ModuleVersion sets the version constraint of a module from a registry,
// as a module block's version argument does.
func ModuleVersion(constraint string) ModuleOption {
	return sdk.ModuleVersion(constraint)
}

// Module calls the Terraform module at source, with args setting its
// variables by name. The source is written as a module block's: a folder
// relative to the program's folder (./modules/net), a module registry
// address (with ModuleVersion), git::URL or an archive URL; what is not
// local is installed into .tether/modules as tether init installs it. A value in args is a plain Go value or holds Outputs (it then
// waits for them), and is converted to the variable's type; the module's
// validation rules run as they do for a module block. A missing required
// variable, an argument the module does not declare, a value of the wrong
// type and a failed validation are errors at the line of the call.
//
// Each call is one module instance: call it in a Go loop, with distinct
// ids, for several. Generated bindings (tether gen --module) call the
// same module with a typed args struct.
func Module(scope Scope, id, source string, args map[string]any, opts ...ModuleOption) *ModuleCall {
	return sdk.Module(scope, id, source, args, opts...)
}

// CallModule calls a module. Generated module bindings call it directly:
// messages point at the line that called the binding, two frames up.
func CallModule(scope Scope, m *ModuleCall, src *ModuleSource, id string, args any, opts ...ModuleOption) {
	sdk.CallModule(scope, m, (*sdk.ModuleSource)(src), id, args, opts...)
}
