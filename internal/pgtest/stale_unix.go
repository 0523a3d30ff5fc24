//go:build unix

package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// removeStale stops the server of every cluster whose test process has
// gone (killed mid-way, it could not call Stop) and removes its folder.
// Where the server dies with its test process (see dieWithParent) only the
// folder is left to remove. A cluster made before owner files were written
// is left alone: nothing says whether its test still runs.
func removeStale(bin string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), clusterPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || owner <= 0 || processExists(owner) {
			continue
		}
		data := filepath.Join(dir, "data")
		if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
			// pg_ctl refuses to run as root: stop it as the cluster's user.
			stale := &Server{Dir: dir, bin: bin, uid: -1, gid: -1}
			if info, err := os.Stat(data); err == nil && os.Geteuid() == 0 {
				if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
					stale.uid, stale.gid = int(st.Uid), int(st.Gid)
				}
			}
			stale.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", data)
		}
		os.RemoveAll(dir)
	}
}

// processExists reports whether a process pid exists, whoever it belongs
// to, and has not exited: a zombie, which only waits for whatever adopted
// it to reap it, does not count (where /proc says so).
func processExists(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// The state follows the command name, which is in parentheses.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			return s[i+2] != 'Z'
		}
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
