//go:build !linux

package recorder

import "os/exec"

// setParentDeathSignal does nothing where the kernel has no such signal:
// the wrapper kills the real provider when it stops.
func setParentDeathSignal(*exec.Cmd) {}
