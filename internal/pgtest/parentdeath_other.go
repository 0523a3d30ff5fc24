//go:build !linux

package pgtest

import "syscall"

// Only Linux has a parent-death signal: elsewhere a server whose test
// process was killed runs on until the next Start finds it (removeStale).
const parentDeathSignal = ""

func dieWithParent(attr *syscall.SysProcAttr) {}

func setprivPdeathsig() bool { return false }
