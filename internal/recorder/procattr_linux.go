package recorder

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal has the kernel kill the real provider when the
// thread that started it ends, so that it never outlives the wrapper.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
