//go:build unix

package main

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// maxRSS is the peak resident set size of a finished process, in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}

// ownProcessGroup puts the command in a process group of its own and makes
// a timeout or an interrupt kill the whole group, so that nothing a tool
// started outlives the harness.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration { return rusageCPU(syscall.RUSAGE_SELF) }

// childrenCPU is the user and system time of this process's children
// that have been waited for.
func childrenCPU() time.Duration { return rusageCPU(syscall.RUSAGE_CHILDREN) }

func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
