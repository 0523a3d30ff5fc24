package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// treeSampler watches a process and every process it starts, however deep
// and in whatever process group (Tether starts providers in groups of
// their own), reading /proc every interval: the peak of their summed
// resident sets, and each process's own high-water mark.
type treeSampler struct {
	root int
	// excludeEnv leaves out the processes below root whose environment
	// holds this variable (the provider wrapper's).
	excludeEnv string

	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	peakSum  int64          // bytes
	hwm      map[int]int64  // pid → VmHWM, bytes
	exe      map[int]string // pid → executable, cached
	excluded map[int]bool
}

const sampleEvery = 20 * time.Millisecond

func sampleTree(root int, excludeEnv string) *treeSampler {
	s := &treeSampler{root: root, excludeEnv: excludeEnv, stop: make(chan struct{}), done: make(chan struct{}),
		hwm: map[int]int64{}, exe: map[int]string{}, excluded: map[int]bool{}}
	go s.loop()
	return s
}

func (s *treeSampler) loop() {
	defer close(s.done)
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *treeSampler) sample() {
	pids := descendants(s.root)
	var sum int64
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range pids {
		// A process is judged again once it has run another executable:
		// between fork and exec it still has its parent's environment.
		exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
		if old, seen := s.exe[pid]; !seen || old != exe {
			s.exe[pid] = exe
			s.excluded[pid] = pid != s.root && s.excludeEnv != "" && hasEnv(pid, s.excludeEnv)
		}
		if s.excluded[pid] {
			continue
		}
		rss, hwm := memOf(pid)
		sum += rss
		s.hwm[pid] = max(s.hwm[pid], hwm)
	}
	s.peakSum = max(s.peakSum, sum)
}

// finish stops sampling. The root has exited by then, so nothing more
// can be read.
func (s *treeSampler) finish() {
	close(s.stop)
	<-s.done
}

// peak is the largest summed resident set seen.
func (s *treeSampler) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakSum
}

// ownPeak is the root's own high-water mark.
func (s *treeSampler) ownPeak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hwm[s.root]
}

// peakOf is the largest high-water mark among the processes whose
// executable's base name starts with prefix.
func (s *treeSampler) peakOf(prefix string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p int64
	for pid, h := range s.hwm {
		if pid != s.root && strings.HasPrefix(filepath.Base(s.exe[pid]), prefix) {
			p = max(p, h)
		}
	}
	return p
}

// descendants are root and every process below it, from the children
// lists of each thread.
func descendants(root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		dir := filepath.Join("/proc", strconv.Itoa(out[i]), "task")
		tasks, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

// hasEnv reports whether a process's environment sets key.
func hasEnv(pid int, key string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// memOf reads a process's current resident set and its high-water mark.
func memOf(pid int) (rss, hwm int64) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kib(v)
		case "VmHWM":
			hwm = kib(v)
		}
	}
	return rss, hwm
}

func kib(v string) int64 {
	f := strings.Fields(v)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return n * 1024
}

// dieWithParent has the kernel kill the command when the process that
// started it dies, so that a killed wrapper leaves no provider behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

const treeSampling = true
