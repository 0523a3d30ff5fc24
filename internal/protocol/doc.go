// Package protocol adapts a provider.Provider to the Terraform plugin
// protocol version 6, so that Terraform itself can use any provider written
// against Tether's cty-based interface.
//
// It converts schemas, values, attribute paths and diagnostics between the
// two representations. Values travel as MessagePack or JSON exactly as
// Terraform encodes them, so conversion goes through go-cty's own codecs,
// except that MessagePack is written by a ValueEncoder, which prepares
// each type once and produces go-cty's bytes (a test holds it to them).
package protocol
