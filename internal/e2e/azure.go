package e2e

import (
	"fmt"
	"os"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/azurite"
	"github.com/tetherhq/tether/internal/state/azstate"
)

// azuriteCmd starts Azurite with the container tfstate and sets
// ARM_ACCESS_KEY and TETHER_AZURERM_BLOB_ENDPOINT for it: azurite. The
// scenario starts with [!azurite] skip, for a machine without Azurite. Then `azurite ls` lists
// the container's blobs, `azurite put NAME FILE` writes one as Terraform
// does, and `azurite lock NAME FILE` locks one as Terraform does, with the
// lock record in FILE.
func azuriteCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! azurite")
	}
	if len(args) == 0 {
		srv, err := azurite.Start("tfstate")
		ts.Check(err)
		ts.Defer(srv.Close)
		ts.Setenv("ARM_ACCESS_KEY", azurite.Key)
		ts.Setenv(azstate.EndpointVariable, srv.Endpoint)
		azuriteStarted.Store(ts, srv)
		ts.Defer(func() { azuriteStarted.Delete(ts) })
		return
	}
	v, ok := azuriteStarted.Load(ts)
	if !ok {
		ts.Fatalf("azurite %s: run azurite first", args[0])
	}
	srv := v.(*azurite.Server)
	switch {
	case args[0] == "ls" && len(args) == 1:
		names, err := srv.List("tfstate")
		ts.Check(err)
		for _, n := range names {
			fmt.Fprintln(ts.Stdout(), n)
		}
	case (args[0] == "put" || args[0] == "lock") && len(args) == 3:
		body, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		if args[0] == "put" {
			ts.Check(srv.Put("tfstate", args[1], body))
		} else {
			ts.Check(srv.TerraformLock("tfstate", args[1], body))
		}
	default:
		ts.Fatalf("usage: azurite [ls | put NAME FILE | lock NAME FILE]")
	}
}

// azuriteStarted holds the Azurite of each running scenario.
var azuriteStarted sync.Map
