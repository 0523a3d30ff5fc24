//go:build !unix

package filelock

// Lock does not lock where there is no flock(2): callers that share a
// folder then may both go ahead, and must tolerate it (a later rename
// wins).
func Lock(path string) (func(), error) { return func() {}, nil }
