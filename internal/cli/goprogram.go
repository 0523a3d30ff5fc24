package cli

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetherhq/tether/internal/goprogram"
	"github.com/tetherhq/tether/internal/hclconfig"
)

// buildNotice is how long a Go program's build runs before Tether says
// what it is doing: an up-to-date build (a fraction of a second) says
// nothing, a first one (the SDK and its dependencies, a minute or two)
// does not leave the terminal silent. 0 says it at once.
var buildNotice = time.Second

// sayWhileBuilding runs build, saying on stderr that the Go program in dir
// is being built once it has taken buildNotice, and how long it took when
// it ends, if it was said.
func (e *env) sayWhileBuilding(dir string, build func() error) error {
	var mu sync.Mutex
	said, done := false, false
	say := func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			fmt.Fprintf(e.stderr, "Building the Go program in %s (go build)...\n", dir)
			said = true
		}
	}
	start := time.Now()
	if buildNotice <= 0 {
		say()
	} else {
		defer time.AfterFunc(buildNotice, say).Stop()
	}
	err := build()
	mu.Lock()
	defer mu.Unlock()
	done = true
	if said && err == nil {
		fmt.Fprintf(e.stderr, "Built it in %.1fs.\n", time.Since(start).Seconds())
	}
	return err
}

// loadsConfig reports whether a command reads the configuration, and so
// must run inside a Go program when the configuration is one.
func loadsConfig(cmd string) bool {
	switch cmd {
	case "init", "plan", "up", "apply", "destroy", "refresh", "graph", "test", "import", "console", "synth":
		return true
	}
	return false
}

// goProgramDir finds the configuration folder named by -C in a command's
// arguments and reports whether it holds a Go main package and no *.tf
// (or *.tofu) files: such a folder is a program written with the Go SDK.
func goProgramDir(args []string) (string, bool) {
	dir := "."
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--C":
			if i+1 < len(args) {
				dir = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "-C=") || strings.HasPrefix(a, "--C="):
			dir = a[strings.Index(a, "=")+1:]
		case a == "-var" || a == "--var" || a == "-var-file" || a == "--var-file" || a == "-parallelism" || a == "--parallelism":
			i++ // its value may look like a flag
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	hasMain := false
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			continue
		}
		if hclconfig.IsConfigFile(n) {
			return "", false
		}
		if hasMain || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		hasMain = err == nil && f.Name.Name == "main"
	}
	return dir, hasMain
}

// withoutDir drops -C and its value from a command's arguments: the
// program runs in that folder already.
func withoutDir(args []string) []string { return withoutFlags(args, "C") }

// withoutFlags drops the flag name (one that takes a value) and its value
// from a command's arguments, wherever it is given.
func withoutFlags(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-"+name || a == "--"+name:
			i++
		case strings.HasPrefix(a, "-"+name+"=") || strings.HasPrefix(a, "--"+name+"="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// runGoProgram builds the Go program in dir and runs the command through
// it, with this process's streams, passing its exit code on. The build is
// kept by content (internal/goprogram): a program built before, in this
// folder or any other, is not linked again.
func (e *env) runGoProgram(dir, cmd string, args []string) int {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return e.errorf("%s holds a Go program, and running it needs the go command, which is not on PATH. Install Go, or run the program with `go run .` there", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return e.errorf("cannot use -C %s: %v", dir, err)
	}
	var bin, root string
	err = e.sayWhileBuilding(dir, func() (err error) {
		bin, root, err = goprogram.Build(goBin, abs, e.stderr)
		return err
	})
	if err != nil {
		return e.errorf("cannot build the Go program in %s: %v", dir, err)
	}
	run := exec.Command(bin, append([]string{cmd}, withoutDir(args)...)...)
	run.Dir = abs
	run.Env = append(os.Environ(), goprogram.DirEnv+"="+root)
	run.Stdin, run.Stdout, run.Stderr = e.stdin, e.stdout, e.stderr
	err = run.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	case errors.As(err, &exit):
		return e.errorf("the Go program in %s ended abnormally: %v", dir, err)
	}
	return e.errorf("cannot run the Go program in %s: %v", dir, err)
}
