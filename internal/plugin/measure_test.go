package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMeasureSchemaCache measures StartWith on the real AWS provider
// without a schema cache, with an empty one, and with a full one, each in
// a fresh process so that peak memory is the start's alone. It runs only
// when TETHER_MEASURE_SCHEMA_CACHE is set: it takes about a minute.
func TestMeasureSchemaCache(t *testing.T) {
	if os.Getenv("TETHER_MEASURE_SCHEMA_CACHE") == "" {
		t.Skip("set TETHER_MEASURE_SCHEMA_CACHE=1 to measure")
	}
	if _, err := os.Stat(awsProvider); err != nil {
		t.Skipf("no AWS provider binary: %v", err)
	}
	dir := t.TempDir()
	t.Logf("%-34s %8s %10s %11s %11s %12s %12s %12s", "start", "seconds", "cache hit", "Tether CPU", "plugin CPU", "Tether peak", "Go alloc", "plugin peak")
	for _, mode := range []string{"none", "cold", "warm", "rehash", "none", "warm", "none", "warm"} {
		if mode == "rehash" {
			// The schema is there, the record of the binary's hash is not.
			os.RemoveAll(dir + "/binaries")
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), measureEnv+"="+mode+":"+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		var m measurement
		if err := json.Unmarshal(bytes.TrimSpace(out), &m); err != nil {
			t.Fatalf("%s: %v: %s", mode, err, out)
		}
		t.Logf("%-34s %8.2f %10v %10.2fs %10.2fs %9d MB %9d MB %9d MB", describeMode(mode), m.Seconds, m.FromCache, m.SelfCPU, m.PluginCPU, m.SelfPeakKB>>10, m.AllocBytes>>20, m.PluginPeakKB>>10)
	}
}

func describeMode(mode string) string {
	return map[string]string{
		"none":   "no cache (Start)",
		"cold":   "empty cache (hash, call, write)",
		"warm":   "full cache",
		"rehash": "full cache, binary hashed again",
	}[mode]
}

const measureEnv = "TETHER_PLUGIN_TEST_MEASURE"

type measurement struct {
	Seconds      float64
	SelfCPU      float64 // user and system seconds
	PluginCPU    float64
	FromCache    bool
	SelfPeakKB   int64
	AllocBytes   uint64
	PluginPeakKB int64
}

func measureStart(arg string) int {
	mode, dir, _ := strings.Cut(arg, ":")
	var opts StartOptions
	if mode != "none" {
		opts.SchemaCacheDir = dir
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore := selfCPU()
	// A CPU profile of the start, for looking into one run by hand.
	if f := os.Getenv("TETHER_PLUGIN_TEST_CPUPROFILE"); f != "" {
		pf, _ := os.Create(f)
		pprof.StartCPUProfile(pf)
	}
	start := time.Now()
	c, err := StartWith(context.Background(), awsProvider, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pprof.StopCPUProfile()
	m := measurement{Seconds: time.Since(start).Seconds(), FromCache: c.schemaFromCache}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	m.AllocBytes = after.TotalAlloc - before.TotalAlloc
	m.SelfCPU = selfCPU() - cpuBefore
	m.PluginCPU = processCPU(c.pid)
	m.SelfPeakKB = peakKB("/proc/self/status")
	m.PluginPeakKB = peakKB(fmt.Sprintf("/proc/%d/status", c.pid))
	c.Close()
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
	return 0
}

// peakKB reads a process's peak resident set size.
func peakKB(statusFile string) int64 {
	b, err := os.ReadFile(statusFile)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(rest, &kb)
			return kb
		}
	}
	return -1
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// processCPU reads a process's user and system time from /proc, in the
// kernel's ticks of (here always) a hundredth of a second.
func processCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return -1
	}
	var utime, stime float64
	fmt.Sscan(fields[11], &utime)
	fmt.Sscan(fields[12], &stime)
	return (utime + stime) / 100
}
