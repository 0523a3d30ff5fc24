//go:build unix

package state

import (
	"errors"
	"syscall"
)

// processRunning reports whether pid exists on this host; known is false
// when that cannot be told.
func processRunning(pid int) (running, known bool) {
	if pid <= 0 {
		return false, false
	}
	err := syscall.Kill(pid, 0)
	switch {
	case err == nil, errors.Is(err, syscall.EPERM): // EPERM: exists, owned by someone else
		return true, true
	case errors.Is(err, syscall.ESRCH):
		return false, true
	}
	return false, false
}
