//go:build !unix

package pgtest

// removeStale does nothing where a process cannot be looked up by pid.
func removeStale(bin string) {}
