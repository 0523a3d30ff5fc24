// Package cli is the tether command: it parses flags, loads the
// configuration, opens state, wires the engine to providers and the ui, and
// turns outcomes into exit codes. It holds no planning logic of its own.
package cli
