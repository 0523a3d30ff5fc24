//go:build !unix

package install

// flock is a no-op where flock(2) is missing.
func flock(path string) func() { return func() {} }
