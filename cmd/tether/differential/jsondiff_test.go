package differential

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestJSONFormatsMatchTerraform makes the same plans with terraform (through
// Tether's provider) and with tether, and compares the machine-readable
// output of both: `show -json` of a saved plan and of state, parsed with
// terraform-json (a data source's result in state and in the plan's
// prior_state included), and the JSON lines of `plan -json` and `up -json`
// (`apply -json`). Timestamps, versions and Terraform's own warnings
// about development overrides are left out of the comparison.
func TestJSONFormatsMatchTerraform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tether and its provider plugin and runs terraform: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: this compares tether's JSON with the terraform 1.11 binary's")
	}
	t.Parallel() // mostly waiting on terraform: it overlaps the other differential tests
	tools := e2e.BuildDiffTools(t)
	env := e2e.DiffEnv(tools)
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	write := func(files map[string]string) {
		for _, s := range []e2e.Side{tf, tt} {
			for name, text := range files {
				p := filepath.Join(s.Dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	must := func(r e2e.CmdResult) e2e.CmdResult {
		t.Helper()
		if r.Err != nil || r.Code != 0 {
			t.Fatalf("%v\n%s", r.Err, r)
		}
		return r
	}
	write(map[string]string{"main.tf": jsonCaseV1})
	must(tf.Run("apply", "-input=false", "-auto-approve", "-no-color", "-var", "pw=hunter2"))
	must(tt.Run("up", "--yes", "-var", "pw=hunter2"))
	compareStates(t, must(tf.Run("show", "-json")).Stdout, must(tt.Run("show", "-json")).Stdout)

	// A second version that updates, replaces, creates and destroys.
	write(map[string]string{"main.tf": jsonCaseV2})
	must(tf.Run("plan", "-input=false", "-no-color", "-var", "pw=hunter3", "-out", "p.tfplan"))
	must(tt.Run("plan", "-var", "pw=hunter3", "-out", "p.tfplan"))
	comparePlans(t, must(tf.Run("show", "-json", "p.tfplan")).Stdout, must(tt.Run("show", "-json", "p.tfplan")).Stdout)

	tfLines := must(tf.Run("plan", "-json", "-input=false", "-var", "pw=hunter3")).Stdout
	ttLines := must(tt.Run("plan", "-json", "-var", "pw=hunter3")).Stdout
	compareLines(t, "plan -json", tfLines, ttLines)

	tfLines = must(tf.Run("apply", "-json", "-input=false", "-auto-approve", "-var", "pw=hunter3")).Stdout
	ttLines = must(tt.Run("up", "-json", "--yes", "-var", "pw=hunter3")).Stdout
	compareLines(t, "apply -json", tfLines, ttLines)
	compareStates(t, must(tf.Run("show", "-json")).Stdout, must(tt.Run("show", "-json")).Stdout)
}

const jsonCaseV1 = `
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "pw" {
  type      = string
  sensitive = true
}
resource "tether_value" "app" { input = "one" }
data "tether_file" "cfg" { path = "main.tf" }
resource "tether_value" "n" {
  count = 2
  input = { list = [1, 2], secret = var.pw, index = count.index }
}
resource "tether_value" "gone" { input = true }
resource "tether_file" "f" {
  path    = "out/a.txt"
  content = tether_value.app.output
}
output "app" { value = tether_value.app.output }
output "secret" {
  value     = var.pw
  sensitive = true
}
`

const jsonCaseV2 = `
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "pw" {
  type      = string
  sensitive = true
}
resource "tether_value" "app" { input = "two" }
data "tether_file" "cfg" { path = "main.tf" }
resource "tether_value" "n" {
  count = 3
  input = { list = [1, 2], secret = var.pw, index = count.index }
}
resource "tether_random" "r" { length = 8 }
resource "tether_file" "f" {
  path    = "out/b.txt"
  content = tether_value.app.output
}
output "app" { value = tether_value.app.output }
output "random" { value = tether_random.r.result }
output "secret" {
  value     = var.pw
  sensitive = true
}
`

func compareStates(t *testing.T, tfOut, ttOut string) {
	t.Helper()
	var a, b tfjson.State
	if err := json.Unmarshal([]byte(tfOut), &a); err != nil {
		t.Fatalf("terraform's state JSON: %v\n%s", err, tfOut)
	}
	if err := json.Unmarshal([]byte(ttOut), &b); err != nil {
		t.Fatalf("tether's state JSON does not parse with terraform-json: %v\n%s", err, ttOut)
	}
	if a.FormatVersion != b.FormatVersion {
		t.Errorf("state format_version: terraform %q, tether %q", a.FormatVersion, b.FormatVersion)
	}
	for _, o := range []*tfjson.State{&a, &b} {
		if r := o.Values.Outputs["random"]; r != nil {
			r.Value = nil // random per run
		}
	}
	e2e.CompareJSON(t, "state values.outputs", a.Values.Outputs, b.Values.Outputs)
	e2e.CompareJSON(t, "state resources", stateResources(a.Values.RootModule), e2e.CoveredBy(t, stateResources(a.Values.RootModule), stateResources(b.Values.RootModule)))
}

// stateResources keeps what both tools must agree on: values that are not
// random ids, sensitivity, and where each resource is.
func stateResources(m *tfjson.StateModule) []map[string]any {
	var out []map[string]any
	if m == nil {
		return nil
	}
	for _, r := range m.Resources {
		vals := map[string]any{}
		for k, v := range r.AttributeValues {
			if k != "id" && k != "result" {
				vals[k] = v
			}
		}
		out = append(out, map[string]any{
			"address": r.Address, "mode": r.Mode, "type": r.Type, "name": r.Name, "index": r.Index,
			"provider_name": r.ProviderName, "schema_version": r.SchemaVersion, "values": vals,
			"sensitive_values": json.RawMessage(r.SensitiveValues), "tainted": r.Tainted,
		})
	}
	for _, c := range m.ChildModules {
		out = append(out, stateResources(c)...)
	}
	return out
}

func comparePlans(t *testing.T, tfOut, ttOut string) {
	t.Helper()
	var a, b tfjson.Plan
	if err := json.Unmarshal([]byte(tfOut), &a); err != nil {
		t.Fatalf("terraform's plan JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ttOut), &b); err != nil {
		t.Fatalf("tether's plan JSON does not parse with terraform-json: %v\n%s", err, ttOut)
	}
	if a.FormatVersion != b.FormatVersion {
		t.Errorf("plan format_version: terraform %q, tether %q", a.FormatVersion, b.FormatVersion)
	}
	e2e.CompareJSON(t, "variables", a.Variables, b.Variables)
	e2e.CompareJSON(t, "configuration", e2e.ConfigurationOf(t, tfOut), e2e.ConfigurationOf(t, ttOut))
	e2e.CompareJSON(t, "planned_values.outputs", a.PlannedValues.Outputs, b.PlannedValues.Outputs)
	e2e.CompareJSON(t, "planned_values resources", stateResources(a.PlannedValues.RootModule), e2e.CoveredBy(t, stateResources(a.PlannedValues.RootModule), stateResources(b.PlannedValues.RootModule)))
	e2e.CompareJSON(t, "output_changes", a.OutputChanges, b.OutputChanges)
	e2e.CompareJSON(t, "resource_changes", e2e.Changes(a.ResourceChanges), e2e.CoveredBy(t, e2e.Changes(a.ResourceChanges), e2e.Changes(b.ResourceChanges)))
	e2e.CompareJSON(t, "resource_drift", e2e.Changes(a.ResourceDrift), e2e.CoveredBy(t, e2e.Changes(a.ResourceDrift), e2e.Changes(b.ResourceDrift)))
	if a.PriorState != nil && b.PriorState != nil {
		e2e.CompareJSON(t, "prior_state resources", stateResources(a.PriorState.Values.RootModule), e2e.CoveredBy(t, stateResources(a.PriorState.Values.RootModule), stateResources(b.PriorState.Values.RootModule)))
	} else if (a.PriorState == nil) != (b.PriorState == nil) {
		t.Errorf("prior_state: terraform has one: %v, tether has one: %v", a.PriorState != nil, b.PriorState != nil)
	}
	if (a.Complete == nil) != (b.Complete == nil) || (a.Complete != nil && *a.Complete != *b.Complete) {
		t.Errorf("complete differs")
	}
}

// compareLines compares two streams of UI JSON lines as sets of
// (type, level, resource, action) and the summaries and outputs.
func compareLines(t *testing.T, what, tfOut, ttOut string) {
	t.Helper()
	a, b := uiLines(t, "terraform", tfOut), uiLines(t, "tether", ttOut)
	e2e.CompareJSON(t, what, a, b)
	for _, s := range []string{tfOut, ttOut} {
		if !strings.HasPrefix(s, `{"@level":"info","@message":"`) {
			t.Errorf("%s: the first line is not a version message:\n%s", what, s)
		}
	}
}

// elapsedRE matches the time an operation took in its message.
var elapsedRE = regexp.MustCompile(` after [0-9hms.]+$`)

func uiLines(t *testing.T, who, out string) []string {
	t.Helper()
	var keys []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: a line that is not JSON: %q", who, line)
		}
		for _, k := range []string{"@level", "@message", "@module", "@timestamp", "type"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: line without %s: %s", who, k, line)
			}
		}
		typ := m["type"].(string)
		switch typ {
		case "version", "diagnostic", "refresh_start", "refresh_complete":
			continue // versions differ; terraform warns of its dev override and refreshes as lines
		case "apply_complete", "apply_start":
			if h, ok := m["hook"].(map[string]any); ok {
				delete(h, "id_value")
				delete(h, "elapsed_seconds")
			}
		case "outputs":
			if o, ok := m["outputs"].(map[string]any); ok {
				if r, ok := o["random"].(map[string]any); ok {
					delete(r, "value")
				}
			}
		}
		delete(m, "@timestamp")
		delete(m, "@module")
		if typ == "apply_complete" || typ == "apply_start" {
			// The message holds the random id, and how long the
			// operation took on a busy machine.
			msg := strings.SplitN(m["@message"].(string), " [id=", 2)[0]
			m["@message"] = elapsedRE.ReplaceAllString(msg, " after Ns")
		}
		raw, _ := json.Marshal(m)
		keys = append(keys, string(raw))
	}
	sort.Strings(keys)
	return keys
}

// TestJSONConfigurationMatchesTerraform plans every differential case, and
// jsonConfigCase, with -out on both sides and compares the
// `configuration` sections of `show -json`, as parsed JSON, exactly:
// provider configurations, resources with their expressions and
// references, module calls with their modules, variables, outputs,
// depends_on and count or for_each expressions. Tether's must also parse
// with terraform-json.
func TestJSONConfigurationMatchesTerraform(t *testing.T) {
	tools := differentialTools(t)
	cases, err := filepath.Glob(filepath.Join("testdata", "diff", "*", "main.tf"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases in testdata/diff: %v", err)
	}
	// Cases of the configuration section alone, which write nothing for
	// TestDifferential to compare.
	only, err := filepath.Glob(filepath.Join("testdata", "jsonconfig", "*", "main.tf"))
	if err != nil || len(only) == 0 {
		t.Fatalf("no cases in testdata/jsonconfig: %v", err)
	}
	for _, mainTF := range append(append(cases, only...), "") {
		caseDir := filepath.Dir(mainTF)
		name := filepath.Base(caseDir)
		if mainTF == "" {
			name = "providers_and_arguments"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var tf, tt e2e.Side
			if mainTF != "" {
				tf, tt = twoSides(t, tools, caseDir)
			} else {
				env := e2e.DiffEnv(tools)
				tf = e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: t.TempDir(), Env: env}
				tt = e2e.Side{Name: "tether", Bin: tools.Tether, Dir: t.TempDir(), Env: env}
				for _, s := range []e2e.Side{tf, tt} {
					if err := os.WriteFile(filepath.Join(s.Dir, "main.tf"), []byte(jsonConfigCase), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Join(s.Dir, "none"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(s.Dir, "none", "main.tf"), []byte(jsonConfigModule), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
				if s.Name == "terraform" {
					if r := s.Run("get", "-no-color"); r.Code != 0 || r.Err != nil {
						return r
					}
					if r := s.Run("plan", "-input=false", "-no-color", "-out", "p.tfplan"); r.Code != 0 || r.Err != nil {
						return r
					}
				} else if r := s.Run("plan", "-out", "p.tfplan"); r.Code != 0 || r.Err != nil {
					return r
				}
				return s.Run("show", "-json", "p.tfplan")
			})
			e2e.MustSucceed(t, "plan -out, show -json", a, b)
			var parsed tfjson.Plan
			if err := json.Unmarshal([]byte(b.Stdout), &parsed); err != nil {
				t.Fatalf("tether's plan JSON does not parse with terraform-json: %v", err)
			}
			if parsed.Config == nil {
				t.Fatalf("tether's plan JSON has no configuration")
			}
			e2e.CompareJSON(t, "configuration", e2e.ConfigurationOf(t, a.Stdout), e2e.ConfigurationOf(t, b.Stdout))
		})
	}
}

// jsonConfigCase has what the differential cases lack: provider blocks
// (one aliased, with a reference), descriptions, converted defaults,
// depends_on on outputs, function calls, splat and index references.
const jsonConfigCase = `
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
provider "tether" {
  runtime_dir = ".tether/runtime"
}
provider "tether" {
  alias       = "b"
  runtime_dir = "${path.module}/rt-${var.names[0]}"
}
variable "names" {
  type        = list(string)
  description = "Names of things."
  default     = [1, "two"]
}
variable "obj" {
  type    = object({ a = string, b = optional(number, 7) })
  default = { a = "x" }
}
variable "none" {
  default = null
}
locals {
  upper = [for n in var.names : upper(n)]
}
resource "tether_value" "v" {
  count    = length(var.names)
  provider = tether.b
  input    = { name = var.names[count.index], all = local.upper, obj = var.obj.a, fixed = "${1 + 2}" }
}
resource "tether_value" "w" {
  input      = [tether_value.v[0].output, tether_value.v[*].output, upper("x"), null, terraform.workspace]
  depends_on = [tether_value.v]
}
data "tether_file" "self" {
  for_each = toset(["main.tf"])
  path     = each.key
}
output "w" {
  value       = tether_value.w.output
  description = "The list."
  depends_on  = [data.tether_file.self, module.none]
}
module "none" {
  source = "./none"
  for_each = { a = 1 }
  n      = each.value
  depends_on = [tether_value.w]
}
output "secret" {
  value     = "${var.obj.b}"
  sensitive = true
}
`

// jsonConfigModule is the module jsonConfigCase calls: its own
// a required variable and an output.
const jsonConfigModule = `
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "n" {
  type = number
}
resource "tether_value" "m" {
  input = var.n
}
output "m" {
  value = tether_value.m.output
}
`
