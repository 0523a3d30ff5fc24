// Package cli is the tether command: it parses flags, loads the
// configuration, opens state, wires the engine to providers and the ui, and
// turns outcomes into exit codes. It holds no planning logic of its own.
//
// The configuration comes from a Source: the HCL files of the folder by
// default, or a Go program's own code when the program calls Run through
// the SDK. A folder holding a Go program instead of *.tf files is built
// and the command run through it.
package cli
