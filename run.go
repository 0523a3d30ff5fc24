package tether

import (
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
)

// Main runs a program written with the SDK as the tether command: `go run
// . plan`, `up`, `destroy`, `output`, `state` and `graph` behave as they do
// for a folder of *.tf files, with the same flags, output and exit codes,
// and state in .tether/ next to the program. For the commands that need
// the configuration, Main calls build with a fresh Stack; an error it
// returns, or a panic, is reported at the program's source and nothing is
// planned or applied. Main does not return.
func Main(build func(*Stack) error) {
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
		// Mistakes in declaration order first: the error the function
		// returned is often their consequence.
		cfg, d := st.seal()
		diags = append(append(diags, d...), failed...)
		return cfg, diags
	})
}
