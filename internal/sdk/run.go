package sdk

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/builtinplugin"
	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// Main runs a program written with the SDK as the tether command: `go run
// . plan`, `up`, `destroy`, `output`, `state` and `graph` behave as they do
// for a folder of *.tf files, with the same flags, output and exit codes,
// and state in .tether/ next to the program. For the commands that need
// the configuration, Main calls build with a fresh Stack; an error it
// returns, or a panic, is reported at the program's source and nothing is
// planned or applied. Main does not return.
//
// The same program runs the closures it deploys (a router's handlers, a
// tester's tests): the functions and tests it deploys start it again with
// TETHER_CLOSURE naming one, and Main then runs build again, to rebuild
// the closures, and runs that closure instead of a command. Main also
// serves the local runtime's routers and stores, which the built-in
// provider starts from this binary.
func Main(build Program) {
	builtinplugin.Main()
	tetherprovider.RuntimeMain()
	if id, ok := os.LookupEnv(tetherprovider.ApplyEnv); ok && id != "" {
		os.Exit(runApply(id, build, os.Stdin, os.Stdout, os.Stderr))
	}
	if id, ok := os.LookupEnv(closureEnv); ok && id != "" {
		os.Exit(runClosure(id, build, os.Stdout, os.Stderr))
	}
	os.Exit(Run(os.Args[1:], build))
}

// Run is Main without the exit: it runs the command in args and returns
// the exit code.
func Run(args []string, build Program) int {
	return run(args, os.Stdin, os.Stdout, os.Stderr, build)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, build Program) int {
	var stacks []*Stack
	code := cli.Run(args, stdin, stdout, stderr, func(in cli.LoadInput) (*config.Config, hcl.Diagnostics) {
		var diags hcl.Diagnostics
		if len(in.Vars) > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Input variables are not used by Go programs",
				Detail: "-var and -var-file set the variables of HCL configurations. A Go program reads its settings itself, for example from the environment."})
			return nil, diags
		}
		st := newStack(in)
		stacks = append(stacks, st)
		failed := st.build(build)
		if len(failed) == 0 {
			st.deployClosures()
		}
		// Mistakes in declaration order first: the error the function
		// returned is often their consequence.
		cfg, d := st.seal()
		diags = append(append(diags, d...), failed...)
		return cfg, diags
	})
	// A declaration made after the program's function returned (from a
	// goroutine) once the engine had evaluated everything is reported
	// here: it is a mistake whenever it happens.
	var late hcl.Diagnostics
	for _, st := range stacks {
		late = append(late, st.takeLate()...)
	}
	if late.HasErrors() {
		ui.WriteDiagnostics(stderr, late, sourceFiles(), false)
		if code == 0 {
			code = 1
		}
	}
	if code == 2 && detailedExitCode(args) && builtByGoRun() && !isTerminal(stdout) {
		fmt.Fprint(stderr, goRunExitNote)
	}
	return code
}

// goRunExitNote is said when plan --detailed-exitcode exits 2 in a program
// that `go run` started, for a script that reads the exit code: go run
// reports every failure of the program as exit status 1.
const goRunExitNote = `
Note: this program exits 2 (changes planned), but "go run" turns every
non-zero exit code into 1, so a script running "go run . plan
--detailed-exitcode" cannot tell changes from errors. Build the program and
run it ("go build -o app . && ./app plan --detailed-exitcode"), or use
"tether plan -C DIR --detailed-exitcode", which builds it for you.
`

func detailedExitCode(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--detailed-exitcode" || a == "-detailed-exitcode" || a == "--detailed-exitcode=true" || a == "-detailed-exitcode=true" {
			return true
		}
	}
	return false
}

// builtByGoRun reports whether the program's executable lies in the go
// command's temporary build folder, as with go run (and go test).
func builtByGoRun() bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	tmp := filepath.Clean(os.TempDir())
	rel, err := filepath.Rel(tmp, exe)
	return err == nil && strings.HasPrefix(rel, "go-build")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
