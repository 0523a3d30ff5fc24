package main

import (
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/provider/tether"
)

func main() {
	tether.RuntimeMain()
	if err := protocol.Serve(protocol.Address, tether.New); err != nil {
		fmt.Fprintln(os.Stderr, "terraform-provider-tether:", err)
		os.Exit(1)
	}
}
