package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tetherhq/tether/internal/azurite"
	"github.com/tetherhq/tether/internal/httpstatefake"
	"github.com/tetherhq/tether/internal/state/azstate"
)

// The --remote cases run the --pg sizes with state also in the s3, http,
// gcs and azurerm backends, each on its emulator on 127.0.0.1 (gofakes3,
// internal/httpstatefake and fake-gcs-server in this process, Azurite from
// npm as a child process): memory stores on
// loopback, so the figures are Tether's own cost of keeping state there
// (its journal objects and their compaction, or the http PUTs), not a
// cloud's latency.

// remoteStores start each backend's emulator for one folder: they write
// its backend block and set the tool's environment, and return how to
// stop the emulator.
var remoteStores = map[string]func(dir string, t *tool) (func(), error){
	"s3": func(dir string, t *tool) (func(), error) {
		mem := s3mem.New()
		if err := mem.CreateBucket("bench"); err != nil {
			return nil, err
		}
		srv := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
		block := fmt.Sprintf(`terraform {
  backend "s3" {
    bucket         = "bench"
    key            = "bench/terraform.tfstate"
    region         = "eu-west-1"
    use_lockfile   = true
    use_path_style = true
    endpoints      = { s3 = %q }
    access_key     = "bench"
    secret_key     = "bench"

    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
  }
}
`, srv.URL)
		t.env = append(t.env, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true")
		return srv.Close, os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(block), 0o644)
	},
	"http": func(dir string, t *tool) (func(), error) {
		srv := httpstatefake.Start("bench", "bench")
		t.env = append(t.env, "TF_HTTP_ADDRESS="+srv.URL+"/state", "TF_HTTP_LOCK_ADDRESS="+srv.URL+"/lock",
			"TF_HTTP_UNLOCK_ADDRESS="+srv.URL+"/lock", "TF_HTTP_USERNAME=bench", "TF_HTTP_PASSWORD=bench")
		return srv.Close, os.WriteFile(filepath.Join(dir, "backend.tf"), []byte("terraform {\n  backend \"http\" {}\n}\n"), 0o644)
	},
	"gcs": func(dir string, t *tool) (func(), error) {
		srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Host: "127.0.0.1", Scheme: "http", PublicHost: "127.0.0.1"})
		if err != nil {
			return nil, err
		}
		srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "bench"})
		block := fmt.Sprintf(`terraform {
  backend "gcs" {
    bucket                  = "bench"
    prefix                  = "bench"
    storage_custom_endpoint = %q
    access_token            = "bench"
  }
}
`, srv.URL()+"/storage/v1/")
		return srv.Stop, os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(block), 0o644)
	},
	"azurerm": func(dir string, t *tool) (func(), error) {
		srv, err := azurite.Start("tfstate")
		if err != nil {
			return nil, err
		}
		block := `terraform {
  backend "azurerm" {
    storage_account_name = "devstoreaccount1"
    container_name       = "tfstate"
    key                  = "bench.terraform.tfstate"
  }
}
`
		t.env = append(t.env, "ARM_ACCESS_KEY="+azurite.Key, azstate.EndpointVariable+"="+srv.Endpoint)
		return srv.Close, os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(block), 0o644)
	},
}

var remoteNames = map[string]string{"s3": "S3", "http": "http", "gcs": "GCS", "azurerm": "Azure Blob"}

func parseRemotes(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if remoteStores[f] == nil {
			return nil, fmt.Errorf("--remote: %q is not s3, http or gcs", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// remoteTable reports the --remote cases beside SQLite and PostgreSQL.
func (r *report) remoteTable(b *strings.Builder) {
	found := false
	for _, p := range r.pg {
		found = found || len(p.remote) > 0
	}
	if !found {
		return
	}
	b.WriteString("## State in s3, http, gcs and azurerm\n\n")
	b.WriteString("The same runs with state in the `s3` (lock file, no DynamoDB table), `http`, `gcs` and `azurerm` backends, each on its emulator on 127.0.0.1 (gofakes3, internal/httpstatefake and fake-gcs-server in the harness process, Azurite as a child process: memory stores, so the figures are Tether's own cost, not a cloud's latency). Ratio is the backend ÷ PostgreSQL.\n\n")
	b.WriteString("| N | step | SQLite wall s | PostgreSQL wall s | backend | wall s | CPU s | peak MiB | ratio to PostgreSQL (wall) |\n|---:|---|---:|---:|---|---:|---:|---:|---:|\n")
	for _, p := range r.pg {
		stores := make([]string, 0, len(p.remote))
		for s := range p.remote {
			stores = append(stores, s)
		}
		sort.Strings(stores)
		for _, step := range []string{stepApply, stepPlan} {
			s, g := p.sqlite[step], p.pg[step]
			for _, st := range stores {
				m := p.remote[st][step]
				if !m.ok() || !g.ok() {
					fmt.Fprintf(b, "| %d | %s | | | %s | failed: %s | | | |\n", p.n, step, remoteNames[st], oneLine(m.Err+" "+g.Err))
					continue
				}
				fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %.0f | %.2f× |\n", p.n, step, secs(s.Wall), secs(g.Wall), remoteNames[st],
					secs(m.Wall), secs(m.CPU), mib(m.MaxRSS), m.Wall.Seconds()/g.Wall.Seconds())
			}
		}
	}
	b.WriteString("\n")
}

// remoteTargets are issue 25's: on each backend, the 10,000 wide first
// apply and no-op plan within 2× of PostgreSQL's wall.
func (r *report) remoteTargets(row func(target, measured, status string), verdict func(bool) string) {
	for _, p := range r.pg {
		if p.n != 10000 {
			continue
		}
		for _, st := range []string{"s3", "http", "gcs", "azurerm"} {
			for _, step := range []string{stepApply, stepPlan} {
				m, g := p.remote[st][step], p.pg[step]
				if p.remote[st] == nil {
					continue
				}
				target := fmt.Sprintf("10,000 wide on %s, %s within 2× of PostgreSQL", remoteNames[st], step)
				if !m.ok() || !g.ok() {
					row(target, "failed", verdict(false))
					continue
				}
				ratio := m.Wall.Seconds() / g.Wall.Seconds()
				row(target, fmt.Sprintf("%.2f× (%s s ÷ %s s)", ratio, secs(m.Wall), secs(g.Wall)), verdict(ratio <= 2))
			}
		}
	}
}
