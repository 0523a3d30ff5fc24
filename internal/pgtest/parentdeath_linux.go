package pgtest

import (
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// parentDeathSignal is the signal the server gets when its test process
// ends: SIGQUIT is PostgreSQL's immediate shutdown, which takes the
// server's own processes with it.
const parentDeathSignal = "QUIT"

// dieWithParent has the kernel send the server parentDeathSignal when the
// thread that started it ends (Server.Start keeps that thread until the
// server exits, so: when the test process ends).
func dieWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGQUIT
}

// setprivPdeathsig reports whether setpriv takes --pdeathsig (util-linux
// 2.33 and later).
var setprivPdeathsig = sync.OnceValue(func() bool {
	out, _ := exec.Command("setpriv", "--help").CombinedOutput()
	return strings.Contains(string(out), "--pdeathsig")
})
