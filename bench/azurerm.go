package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherhq/tether/internal/azurite"
	"github.com/tetherhq/tether/internal/state/azstate"
)

// The azurerm cases (--azurerm N,...) run the wide shape of N resources
// with state in SQLite and in Azure Blob Storage (backend "azurerm"):
// first apply and no-op plan, each one tether process, against Azurite on
// 127.0.0.1 (blobs kept in memory), with the account's access key.

const azurermBlock = `terraform {
  backend "azurerm" {
    storage_account_name = "devstoreaccount1"
    container_name       = "tfstate"
    key                  = "bench.terraform.tfstate"
  }
}
`

// azureResult is one size's figures on each store.
type azureResult struct {
	n          int
	sqlite, az map[string]measurement
	err        string
}

// runAzure measures one size on both stores, with an Azurite of its own.
func (h *harness) runAzure(ctx context.Context, n int) azureResult {
	res := azureResult{n: n, sqlite: map[string]measurement{}, az: map[string]measurement{}}
	srv, err := azurite.Start("tfstate")
	if err != nil {
		res.err = err.Error()
		return res
	}
	defer srv.Close()
	res.err = h.runStores(ctx, n, []storeCase{
		{name: "sqlite", into: res.sqlite},
		{name: "azurerm", into: res.az, block: azurermBlock,
			env: []string{"ARM_ACCESS_KEY=" + azurite.Key, azstate.EndpointVariable + "=" + srv.Endpoint}},
	})
	return res
}

// azureTable reports the azurerm cases.
func (r *report) azureTable(b *strings.Builder) {
	if len(r.azure) == 0 {
		return
	}
	b.WriteString("## Azure Blob state (azurerm)\n\n")
	b.WriteString("The wide shape with state in SQLite (`.tether/state.db`) and in Azure Blob Storage (`backend \"azurerm\"`), each step one `tether` process, against Azurite (npm `azurite`, blobs in memory) on 127.0.0.1. Ratio is azurerm ÷ SQLite.\n\n")
	b.WriteString("| N | step | SQLite wall s | azurerm wall s | azurerm CPU s | azurerm peak MiB | ratio (wall) |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, a := range r.azure {
		if a.err != "" {
			fmt.Fprintf(b, "| %d | — | failed: %s | | | | |\n", a.n, oneLine(a.err))
			continue
		}
		for _, step := range []string{stepApply, stepPlan} {
			s, z := a.sqlite[step], a.az[step]
			if !s.ok() || !z.ok() {
				fmt.Fprintf(b, "| %d | %s | failed: %s | | | | |\n", a.n, step, oneLine(s.Err+" "+z.Err))
				continue
			}
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %.0f | %.2f× |\n", a.n, step, secs(s.Wall), secs(z.Wall), secs(z.CPU), mib(z.MaxRSS), z.Wall.Seconds()/s.Wall.Seconds())
		}
	}
	b.WriteString("\n")
}

// azureTargets are issue 25's: the 10,000 wide first apply and no-op plan
// on azurerm within 2× of PostgreSQL's wall, measured in the same run.
func (r *report) azureTargets(row func(target, measured, status string), verdict func(bool) string) {
	for _, step := range []string{stepApply, stepPlan} {
		target := fmt.Sprintf("10,000 wide on azurerm, %s within 2× of PostgreSQL", step)
		var pg, az measurement
		var havePG, haveAz bool
		for _, p := range r.pg {
			if p.n == 10000 && p.err == "" {
				pg, havePG = p.pg[step], true
			}
		}
		for _, a := range r.azure {
			if a.n == 10000 && a.err == "" {
				az, haveAz = a.az[step], true
			}
		}
		if !havePG || !haveAz || !pg.ok() || !az.ok() {
			row(target, "", "not measured in this run (--pg 10000 --azurerm 10000)")
			continue
		}
		ratio := az.Wall.Seconds() / pg.Wall.Seconds()
		row(target, fmt.Sprintf("%.2f× (%s s ÷ %s s)", ratio, secs(az.Wall), secs(pg.Wall)), verdict(ratio <= 2))
	}
}
