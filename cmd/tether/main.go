package main

import (
	"os"

	"github.com/tetherhq/tether/internal/builtinplugin"
	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/startgc"
	"github.com/tetherhq/tether/provider/tether"
)

func main() {
	// Collection is off from startgc's initialiser on. Serving the
	// built-in provider sets its own collector policy (protocol.Serve),
	// and so does every command (cli.Run, first thing); a runtime helper
	// (what tether.RuntimeMain runs for `tether runtime ...`) gets Go's
	// default back.
	builtinplugin.Main()
	if len(os.Args) > 1 && os.Args[1] == "runtime" {
		startgc.Release()
	}
	tether.RuntimeMain()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
