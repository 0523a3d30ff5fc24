// Package tether implements the built-in "tether" provider: local files,
// random strings and plain values, operated directly on cty values.
//
// It implements provider.Provider in process, so the engine calls it without
// any serialization, and the same implementation is offered to Terraform
// through package protocol.
package tether
