//go:build unix

package tether

import (
	"errors"
	"syscall"
)

// detached makes a child the leader of a new session, and so of a new
// process group: it outlives the command that started it, a terminal's
// Ctrl-C does not reach it, and stopping the group stops whatever the
// child started in turn.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// grouped puts a child in a process group of its own, still in our
// session, so that a test and everything it starts can be killed at once.
func grouped() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func terminateGroup(pgid int) error { return signalGroup(pgid, syscall.SIGTERM) }
func killGroup(pgid int) error      { return signalGroup(pgid, syscall.SIGKILL) }

// groupExists reports whether any process is left in the group.
func groupExists(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processExists reports whether any process has the pid, ours or not.
func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// leadsGroup is the identity check where /proc cannot tell start times:
// a process we started leads its own group, which a recycled pid seldom
// does.
func leadsGroup(pid int) bool {
	pgid, err := syscall.Getpgid(pid)
	return err == nil && pgid == pid
}

const runtimeSupported = true

func processGroup(pid int) (int, error) { return syscall.Getpgid(pid) }
