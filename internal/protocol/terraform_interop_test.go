package protocol_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/providertest"
)

const interopConfig = `
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "suffix_length" {
  type    = number
  default = 12
}

resource "tether_random" "suffix" {
  length  = var.suffix_length
  keepers = { env = "test" }
}

resource "tether_value" "cfg" {
  input = {
    name     = "app-${tether_random.suffix.result}"
    replicas = 3
  }
  delay_ms = 10
}

resource "tether_value" "static" {
  input = { greeting = "hello" }
}

resource "tether_file" "static" {
  path    = "out/static.txt"
  content = "greeting=${tether_value.static.output.greeting}\n"
}

resource "tether_file" "app" {
  path            = "out/nested/app.txt"
  content         = "name=${tether_value.cfg.output.name}\n"
  file_permission = "0600"
}

data "tether_file" "app" {
  path = tether_file.app.id
}

output "suffix" {
  value = tether_random.suffix.result
}

output "read_back" {
  value = data.tether_file.app.content
}

output "sha_match" {
  value = data.tether_file.app.sha256 == tether_file.app.sha256
}

output "cfg" {
  value = tether_value.cfg.output
}
`

// TestTerraformInterop checks that the real terraform binary can use the
// provider binary end to end: plan, apply, outputs, an empty second plan,
// drift after hand edits, replacement, and destroy.
func TestTerraformInterop(t *testing.T) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not on PATH: interop check needs the terraform 1.11 binary")
	}
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the provider binary and runs terraform nine times, which takes several seconds")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go not on PATH, so the provider binary cannot be built: %s", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The build is shared with the other packages' tests (see
	// providertest.GoBuild); the dev override's folder links to it.
	exe, err := providertest.GoBuild("./cmd/terraform-provider-tether")
	if err != nil {
		t.Fatalf("building the provider: %s", err)
	}
	pluginDir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(pluginDir, "terraform-provider-tether")); err != nil {
		t.Fatal(err)
	}

	home := t.TempDir()
	cliConfig := filepath.Join(home, "terraform.rc")
	writeFile(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "tetherhq/tether" = %q
  }
  direct {}
}
`, pluginDir))

	work := t.TempDir()
	writeFile(t, filepath.Join(work, "main.tf"), interopConfig)

	// Only our TF_ variables: a TF_LOG or TF_CLI_ARGS from the caller's
	// environment would change what terraform prints or does.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+home,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
	)
	terraform := func(wantExit int, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, tf, args...)
		cmd.Dir = work
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatalf("terraform %s: %s", strings.Join(args, " "), err)
		}
		if code != wantExit {
			t.Fatalf("terraform %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantExit, &stdout, &stderr)
		}
		return stdout.String()
	}

	// Plan: values that do not depend on anything unknown are already
	// known, because tether_value passes a known input straight through.
	terraform(0, "plan", "-input=false", "-no-color", "-out=tfplan")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions      []string                   `json:"actions"`
				After        map[string]json.RawMessage `json:"after"`
				AfterUnknown map[string]json.RawMessage `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(terraform(0, "show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	creates := map[string]bool{}
	for _, rc := range plan.ResourceChanges {
		if len(rc.Change.Actions) == 1 && rc.Change.Actions[0] == "create" {
			creates[rc.Address] = true
		}
		switch rc.Address {
		case "tether_file.static":
			if got, want := string(rc.Change.After["sha256"]), `"`+sha256Hex("greeting=hello\n")+`"`; got != want {
				t.Errorf("planned tether_file.static.sha256 = %s, want %s", got, want)
			}
		case "tether_value.static":
			if got := string(rc.Change.After["output"]); got != `{"greeting":"hello"}` {
				t.Errorf("planned tether_value.static.output = %s, want the input", got)
			}
		case "tether_random.suffix":
			if string(rc.Change.AfterUnknown["result"]) != "true" {
				t.Errorf("tether_random.suffix.result is known before it is generated")
			}
		}
	}
	for _, addr := range []string{"tether_random.suffix", "tether_value.cfg", "tether_value.static", "tether_file.static", "tether_file.app"} {
		if !creates[addr] {
			t.Errorf("plan does not create %s", addr)
		}
	}

	terraform(0, "apply", "-input=false", "-no-color", "-auto-approve")

	var outputs struct {
		Suffix   struct{ Value string }         `json:"suffix"`
		ReadBack struct{ Value string }         `json:"read_back"`
		ShaMatch struct{ Value bool }           `json:"sha_match"`
		Cfg      struct{ Value map[string]any } `json:"cfg"`
	}
	if err := json.Unmarshal([]byte(terraform(0, "output", "-json")), &outputs); err != nil {
		t.Fatal(err)
	}
	suffix := outputs.Suffix.Value
	if !regexp.MustCompile(`^[A-Za-z0-9]{12}$`).MatchString(suffix) {
		t.Fatalf("suffix = %q, want 12 alphanumerics", suffix)
	}
	appPath := filepath.Join(work, "out", "nested", "app.txt")
	staticPath := filepath.Join(work, "out", "static.txt")
	wantApp := "name=app-" + suffix + "\n"
	checkFile(t, appPath, wantApp, 0o600)
	checkFile(t, staticPath, "greeting=hello\n", 0o644)
	if outputs.ReadBack.Value != wantApp || !outputs.ShaMatch.Value {
		t.Errorf("data source read %q (sha match %v), want %q", outputs.ReadBack.Value, outputs.ShaMatch.Value, wantApp)
	}
	if outputs.Cfg.Value["name"] != "app-"+suffix || outputs.Cfg.Value["replicas"] != 3.0 {
		t.Errorf("cfg output = %v", outputs.Cfg.Value)
	}

	// Nothing changed, nothing to do: random results and ids are stable.
	terraform(0, "plan", "-input=false", "-no-color", "-detailed-exitcode")

	// A new length replaces the random string rather than updating it.
	out := terraform(2, "plan", "-input=false", "-no-color", "-detailed-exitcode", "-var=suffix_length=10")
	if !strings.Contains(out, "tether_random.suffix must be replaced") {
		t.Errorf("changing length does not plan a replacement:\n%s", out)
	}

	// Drift: an edited file is updated in place, a deleted one re-created.
	writeFile(t, appPath, "edited by hand\n")
	if err := os.Remove(staticPath); err != nil {
		t.Fatal(err)
	}
	out = terraform(2, "plan", "-input=false", "-no-color", "-detailed-exitcode")
	for _, want := range []string{
		"tether_file.app will be updated in-place",
		"tether_file.static will be created",
		"Plan: 1 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("drift plan lacks %q:\n%s", want, out)
		}
	}
	terraform(0, "apply", "-input=false", "-no-color", "-auto-approve")
	checkFile(t, appPath, wantApp, 0o600)
	checkFile(t, staticPath, "greeting=hello\n", 0o644)

	terraform(0, "destroy", "-input=false", "-no-color", "-auto-approve")
	for _, p := range []string{appPath, staticPath} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after destroy (%v)", p, err)
		}
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: %s", path, err)
		return
	}
	if info.Mode().Perm() != perm {
		t.Errorf("%s has mode %o, want %o", path, info.Mode().Perm(), perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	if string(b) != content {
		t.Errorf("%s contains %q, want %q", path, b, content)
	}
}
