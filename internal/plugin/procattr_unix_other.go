//go:build unix && !linux

package plugin

import "syscall"

// setParentDeathSignal does nothing: only Linux kills a child when its
// parent dies.
func setParentDeathSignal(*syscall.SysProcAttr) {}
