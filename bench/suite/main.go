package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json`.
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// result is a package's or a test's outcome.
type result struct {
	pkg, test string
	action    string // pass, fail or skip
	elapsed   float64
}

// run is what one suite run measured.
type run struct {
	started       time.Time
	wall, cpu     time.Duration // 0 when read --from a file
	loadBefore    string
	loadAfter     string
	commit, goVer string
	args          []string
	packages      []result
	tests         []result
	exitCode      int
	from          string
}

func main() {
	write := flag.String("write", "", "append the section to this Markdown file (bench/SUITE.md) instead of printing it")
	top := flag.Int("top", 30, "how many of the slowest tests to list")
	from := flag.String("from", "", "read this `go test -json` output instead of running the tests")
	save := flag.String("save", "", "also write the run's `go test -json` output to this file")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		args = []string{"-timeout", "45m", "./..."}
	}
	r := run{started: time.Now().UTC(), args: args, from: *from, loadBefore: loadAverage()}
	if *from == "" {
		r.commit = commit()
	} else {
		r.commit = "commit not recorded"
	}
	r.goVer = runtime.Version()
	var events io.Reader
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			fatal(err)
		}
		events = bytes.NewReader(b)
	} else {
		var out bytes.Buffer
		cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		start := time.Now()
		err := cmd.Run()
		r.wall = time.Since(start)
		if cmd.ProcessState != nil {
			r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			r.exitCode = cmd.ProcessState.ExitCode()
		} else if err != nil {
			fatal(err)
		}
		events = bytes.NewReader(out.Bytes())
		if *save != "" {
			if err := os.WriteFile(*save, out.Bytes(), 0o644); err != nil {
				fatal(err)
			}
		}
	}
	r.loadAfter = loadAverage()
	if err := r.read(events); err != nil {
		fatal(err)
	}
	text := r.markdown(*top)
	if *write == "" {
		fmt.Print(text)
	} else {
		f, err := os.OpenFile(*write, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			fatal(err)
		}
		if err := f.Close(); err != nil {
			fatal(err)
		}
	}
	if r.exitCode != 0 {
		os.Exit(r.exitCode)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "suite:", err)
	os.Exit(1)
}

// read collects the packages' and the tests' results from go test -json
// output; lines that are not JSON (a build failure's) are skipped.
func (r *run) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if r.from != "" && r.started.After(e.Time) && !e.Time.IsZero() {
			r.started = e.Time.UTC()
		}
		if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		res := result{pkg: strings.TrimPrefix(e.Package, "github.com/tetherhq/tether/"), test: e.Test, action: e.Action, elapsed: e.Elapsed}
		if res.pkg == "github.com/tetherhq/tether" {
			res.pkg = "(root)"
		}
		switch {
		case e.Test == "":
			r.packages = append(r.packages, res)
		case e.Action != "skip":
			r.tests = append(r.tests, res)
		}
	}
	return sc.Err()
}

// markdown is the run as a section of bench/SUITE.md.
func (r *run) markdown(top int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s, %s\n\n", r.started.Format("2006-01-02 15:04 UTC"), r.commit)
	if r.from != "" {
		fmt.Fprintf(&b, "- Read from `%s` (a `go test -json` run): its wall time, CPU and load are not known here.\n", r.from)
	} else {
		fmt.Fprintf(&b, "- `go test -json %s`: %s wall, %s CPU (user+system, go test and every process it waited for); exit %d.\n",
			strings.Join(r.args, " "), r.wall.Round(time.Second), r.cpu.Round(time.Second), r.exitCode)
		fmt.Fprintf(&b, "- Load average (1, 5, 15 min) before: %s; after: %s. Machine: %s/%s, %d cores; %s.\n",
			r.loadBefore, r.loadAfter, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), r.goVer)
	}
	sort.SliceStable(r.packages, func(i, j int) bool { return r.packages[i].elapsed > r.packages[j].elapsed })
	b.WriteString("\n| package | result | s |\n|---|---|---:|\n")
	var sum float64
	for _, p := range r.packages {
		sum += p.elapsed
		if p.action == "skip" || p.elapsed < 1 && p.action == "pass" {
			continue // no test files, or quick: nothing to read
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f |\n", p.pkg, p.action, p.elapsed)
	}
	fmt.Fprintf(&b, "| (%d packages in all; those under 1 s or without tests not listed) | | %.1f |\n", len(r.packages), sum)
	// Subtests are listed beside their parents: a parent's time includes
	// theirs only when they run sequentially.
	sort.SliceStable(r.tests, func(i, j int) bool { return r.tests[i].elapsed > r.tests[j].elapsed })
	if len(r.tests) > top {
		r.tests = r.tests[:top]
	}
	fmt.Fprintf(&b, "\n%d slowest tests (a parallel test's time does not count its waits):\n\n| package | test | result | s |\n|---|---|---|---:|\n", len(r.tests))
	for _, t := range r.tests {
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f |\n", t.pkg, t.test, t.action, t.elapsed)
	}
	return b.String()
}

// commit is HEAD's short hash, with "+changes" when the work tree differs.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " with local changes"
	}
	return c
}

// loadAverage is the first three fields of /proc/loadavg, "unknown"
// elsewhere.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
