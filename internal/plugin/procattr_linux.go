package plugin

import "syscall"

// setParentDeathSignal has the kernel kill the plugin when the thread that
// started it ends: see client.launch, which keeps that thread until Close.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
