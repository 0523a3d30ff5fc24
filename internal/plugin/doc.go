// Package plugin runs a Terraform provider plugin binary and presents it to
// the engine as a provider.Provider: the client side of the plugin protocol,
// as internal/protocol is the server side.
//
// Start launches the binary with go-plugin and Terraform's handshake,
// speaks protocol version 6 or 5 over gRPC with automatic mutual TLS, reads
// the schema once, and converts values, paths and diagnostics with
// internal/protocol's converters. Close kills the process.
//
// The gRPC stubs in tfplugin5 and tfplugin6 are terraform-plugin-go's
// generated code, copied because that module keeps it internal; their
// README files say from where, and the one change made to them.
package plugin
