// Package protocol adapts a provider.Provider to the Terraform plugin
// protocol version 6, so that Terraform itself can use any provider written
// against Tether's cty-based interface.
//
// It converts schemas, values, attribute paths and diagnostics between the
// two representations. Values travel as MessagePack or JSON exactly as
// Terraform encodes them, so conversion goes through go-cty's own codecs.
package protocol
