// Package tfplugin5 is the generated Go code for version 5 of the Terraform
// plugin protocol, copied from terraform-plugin-go (see README.md).
package tfplugin5

import (
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// terraform-plugin-go registers its own copy of these descriptors, under the
// same file path and full names, in protobuf's global registry, and every
// Tether binary links that copy too (internal/protocol serves the built-in
// provider with it). A second registration of a name panics at init, so
// this copy registers in registries of its own. Nothing here looks messages
// up by name: gRPC marshals the generated types directly, and the method
// names on the wire ("/tfplugin5.Provider/...") live in tfplugin5_grpc.pb.go
// unchanged.
var (
	localFiles = newLocalFiles()
	localTypes = new(protoregistry.Types)
)

func newLocalFiles() *protoregistry.Files {
	files := new(protoregistry.Files)
	// The protocol imports the well-known Timestamp; registering it here lets
	// that import resolve to the real descriptor instead of a placeholder.
	if err := files.RegisterFile(timestamppb.File_google_protobuf_timestamp_proto); err != nil {
		panic(err)
	}
	return files
}
