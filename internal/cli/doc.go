// Package cli is the tether command: it parses flags, loads the
// configuration, opens state, wires the engine to providers and the ui, and
// turns outcomes into exit codes. It holds no planning logic of its own.
//
// The configuration comes from a Source: the HCL files of the folder by
// default, or a Go program's own code when the program calls Run through
// the SDK. A folder holding a Go program instead of *.tf files is built
// and the command run through it.
//
// Providers run in a pool per command: installed on first use through
// internal/install (checked against the lock file, as `tether init` would),
// started through internal/plugin (the built-in one in process, unless a
// development override names a build of it), and all stopped when the
// command ends, whatever way it ends.
package cli
