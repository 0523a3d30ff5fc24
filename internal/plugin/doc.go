// Package plugin runs a Terraform provider plugin binary and presents it to
// the engine as a provider.Provider: the client side of the plugin protocol,
// as internal/protocol is the server side.
//
// Start launches the binary with go-plugin and Terraform's handshake,
// speaks protocol version 6 or 5 over gRPC with automatic mutual TLS, reads
// the schema once, and converts values, paths and diagnostics with
// internal/protocol's converters. StartWith does the same with options: a
// schema cache across runs (StartOptions.SchemaCacheDir), and the Client
// itself. The provider's functions come with its schema (Schema.Functions),
// each decoded on first use and calling this process.
//
// The process lives exactly as long as the Client: it leads a process
// group of its own, which Close and a failed or cancelled start kill
// whole, and on Linux it dies with the thread that started it, which the
// Client holds until Close, so it dies with Tether too.
//
// The two protocol versions differ, for the calls made here, only in the
// names of some RPCs and messages and in nested attributes, which version
// 5 lacks. v6.go holds the version 6 client; v5.go is generated from it by
// gen_v5.go (go generate), and TestV5IsGenerated fails when it is stale.
//
// The gRPC stubs in tfplugin5 and tfplugin6 are terraform-plugin-go's
// generated code, copied because that module keeps it internal; their
// README files say from where, and the one change made to them.
package plugin
