//go:build !unix

package recorder

// lockFile does not lock where there is no flock: sharing a provider
// between wrappers (EnvReattach) is for Unix test machines.
func lockFile(string) (func(), error) { return func() {}, nil }
