//go:build unix

package filelock

import (
	"os"
	"syscall"
)

// Lock takes an exclusive lock on path, creating the file if need be and
// waiting while another process holds it, and returns the function that
// releases it. An error means no lock is held.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
