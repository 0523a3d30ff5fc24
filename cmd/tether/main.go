package main

import (
	"os"

	"github.com/tetherhq/tether/internal/builtinplugin"
	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/provider/tether"
)

func main() {
	builtinplugin.Main()
	tether.RuntimeMain()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
