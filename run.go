package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
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
	sdk.Main(program(build))
}

// Run is Main without the exit: it runs the command in args and returns
// the exit code.
func Run(args []string, build func(*Stack) error) int {
	return sdk.Run(args, program(build))
}

// program is build as the implementation runs it: with a Stack made for
// each stack the implementation builds, and build's own place for
// messages.
func program(build func(*Stack) error) sdk.Program {
	if build == nil {
		return sdk.Program{}
	}
	return sdk.Program{
		Build: func(st *sdk.Stack) error { return build(&Stack{sdk.NewStackScope(st)}) },
		Func:  build,
	}
}
