//go:build unix

package install

import (
	"os"
	"syscall"
)

// flock takes an exclusive lock on the file path, waiting for it, so that
// two processes never install into one folder at once; the returned
// function releases it. A lock that cannot be taken is skipped: it guards
// against a rare race and must not stop an install.
func flock(path string) func() {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
