//go:build windows

package durable

// Windows cannot sync a folder opened for reading; NTFS journals its
// renames itself.
func isUnsupported(error) bool { return true }
