package tether

import (
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
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
func Main(build func(*Stack) error) {
	tetherprovider.RuntimeMain()
	if id, ok := os.LookupEnv(closureEnv); ok && id != "" {
		os.Exit(runClosure(id, build, os.Stdout, os.Stderr))
	}
	os.Exit(Run(os.Args[1:], build))
}

// Run is Main without the exit: it runs the command in args and returns
// the exit code.
func Run(args []string, build func(*Stack) error) int {
	return run(args, os.Stdin, os.Stdout, os.Stderr, build)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, build func(*Stack) error) int {
	return cli.Run(args, stdin, stdout, stderr, func(in cli.LoadInput) (*config.Config, hcl.Diagnostics) {
		var diags hcl.Diagnostics
		if len(in.Vars) > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Input variables are not used by Go programs",
				Detail: "-var and -var-file set the variables of HCL configurations. A Go program reads its settings itself, for example from the environment."})
			return nil, diags
		}
		st := newStack(in)
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
}
