//go:build windows

package state

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processRunning reports whether pid exists on this host; known is false
// when that cannot be told.
func processRunning(pid int) (running, known bool) {
	if pid <= 0 {
		return false, false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) { // no such process
			return false, true
		}
		return false, false // e.g. access denied: it exists, but don't claim so
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false, false
	}
	const stillActive = 259
	return code == stillActive, true
}
