//go:build unix

package plugin

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the plugin as the leader of a process group of
// its own, so that Close can kill whatever it started along with it, and
// so that a Ctrl-C at the terminal reaches Tether alone: Tether asks
// providers to stop through the protocol (StopProvider). Where the kernel
// offers it (see parentDeath), the plugin also dies with Tether.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	// A cancelled start kills the group, not only the plugin.
	cmd.Cancel = func() error {
		if err := killProcessGroup(cmd); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

// killProcessGroup kills every process in the plugin's group. It does
// nothing for a plugin that never started, and succeeds when the group has
// already gone.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
