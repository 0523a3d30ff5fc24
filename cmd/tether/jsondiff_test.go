package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
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
	tools := buildDiffTools(t)
	env := diffEnv(tools)
	tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "terraform"), env: env}
	tt := side{name: "tether", bin: tools.tether, dir: filepath.Join(t.TempDir(), "tether"), env: env}
	write := func(files map[string]string) {
		for _, s := range []side{tf, tt} {
			for name, text := range files {
				p := filepath.Join(s.dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	must := func(r cmdResult) cmdResult {
		t.Helper()
		if r.err != nil || r.code != 0 {
			t.Fatalf("%v\n%s", r.err, r)
		}
		return r
	}
	write(map[string]string{"main.tf": jsonCaseV1})
	must(tf.run("apply", "-input=false", "-auto-approve", "-no-color", "-var", "pw=hunter2"))
	must(tt.run("up", "--yes", "-var", "pw=hunter2"))
	compareStates(t, must(tf.run("show", "-json")).stdout, must(tt.run("show", "-json")).stdout)

	// A second version that updates, replaces, creates and destroys.
	write(map[string]string{"main.tf": jsonCaseV2})
	must(tf.run("plan", "-input=false", "-no-color", "-var", "pw=hunter3", "-out", "p.tfplan"))
	must(tt.run("plan", "-var", "pw=hunter3", "-out", "p.tfplan"))
	comparePlans(t, must(tf.run("show", "-json", "p.tfplan")).stdout, must(tt.run("show", "-json", "p.tfplan")).stdout)

	tfLines := must(tf.run("plan", "-json", "-input=false", "-var", "pw=hunter3")).stdout
	ttLines := must(tt.run("plan", "-json", "-var", "pw=hunter3")).stdout
	compareLines(t, "plan -json", tfLines, ttLines)

	tfLines = must(tf.run("apply", "-json", "-input=false", "-auto-approve", "-var", "pw=hunter3")).stdout
	ttLines = must(tt.run("up", "-json", "--yes", "-var", "pw=hunter3")).stdout
	compareLines(t, "apply -json", tfLines, ttLines)
	compareStates(t, must(tf.run("show", "-json")).stdout, must(tt.run("show", "-json")).stdout)
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
	compareJSON(t, "state values.outputs", a.Values.Outputs, b.Values.Outputs)
	compareJSON(t, "state resources", stateResources(a.Values.RootModule), coveredBy(t, stateResources(a.Values.RootModule), stateResources(b.Values.RootModule)))
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
	compareJSON(t, "variables", a.Variables, b.Variables)
	compareJSON(t, "configuration", configurationOf(t, tfOut), configurationOf(t, ttOut))
	compareJSON(t, "planned_values.outputs", a.PlannedValues.Outputs, b.PlannedValues.Outputs)
	compareJSON(t, "planned_values resources", stateResources(a.PlannedValues.RootModule), coveredBy(t, stateResources(a.PlannedValues.RootModule), stateResources(b.PlannedValues.RootModule)))
	compareJSON(t, "output_changes", a.OutputChanges, b.OutputChanges)
	compareJSON(t, "resource_changes", changes(a.ResourceChanges), coveredBy(t, changes(a.ResourceChanges), changes(b.ResourceChanges)))
	compareJSON(t, "resource_drift", changes(a.ResourceDrift), coveredBy(t, changes(a.ResourceDrift), changes(b.ResourceDrift)))
	if a.PriorState != nil && b.PriorState != nil {
		compareJSON(t, "prior_state resources", stateResources(a.PriorState.Values.RootModule), coveredBy(t, stateResources(a.PriorState.Values.RootModule), stateResources(b.PriorState.Values.RootModule)))
	} else if (a.PriorState == nil) != (b.PriorState == nil) {
		t.Errorf("prior_state: terraform has one: %v, tether has one: %v", a.PriorState != nil, b.PriorState != nil)
	}
	if (a.Complete == nil) != (b.Complete == nil) || (a.Complete != nil && *a.Complete != *b.Complete) {
		t.Errorf("complete differs")
	}
}

func changes(rcs []*tfjson.ResourceChange) []map[string]any {
	var out []map[string]any
	for _, rc := range rcs {
		c := rc.Change
		out = append(out, map[string]any{
			"address": rc.Address, "module_address": rc.ModuleAddress, "mode": rc.Mode, "type": rc.Type, "name": rc.Name,
			"index": rc.Index, "provider_name": rc.ProviderName, "action_reason": rc.ActionReason,
			"actions": c.Actions, "before": withoutIDs(c.Before), "after": withoutIDs(c.After), "after_unknown": c.AfterUnknown,
			"before_sensitive": c.BeforeSensitive, "after_sensitive": c.AfterSensitive, "replace_paths": c.ReplacePaths,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["address"].(string) < out[j]["address"].(string) })
	return out
}

// withoutIDs drops the attributes whose values are random per run.
func withoutIDs(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, e := range m {
		if k != "id" && k != "result" {
			out[k] = e
		}
	}
	return out
}

// compareLines compares two streams of UI JSON lines as sets of
// (type, level, resource, action) and the summaries and outputs.
func compareLines(t *testing.T, what, tfOut, ttOut string) {
	t.Helper()
	a, b := uiLines(t, "terraform", tfOut), uiLines(t, "tether", ttOut)
	compareJSON(t, what, a, b)
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

func compareJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	var ga, gb any
	json.Unmarshal(ra, &ga)
	json.Unmarshal(rb, &gb)
	if !reflect.DeepEqual(ga, gb) {
		pa, _ := json.MarshalIndent(ga, "", " ")
		pb, _ := json.MarshalIndent(gb, "", " ")
		t.Errorf("%s differ\nterraform:\n%s\ntether:\n%s", what, pa, pb)
	}
}

// coveredBy accepts tether marking more as sensitive than terraform: what
// is computed from a secret is secret in Tether (a provider's output of a
// sensitive input), which Terraform does not track. Where tether's
// sensitivity covers terraform's, tether's entry takes terraform's, so
// that the comparison that follows checks everything else.
func coveredBy(t *testing.T, tf, tt []map[string]any) []map[string]any {
	t.Helper()
	if len(tf) != len(tt) {
		return tt
	}
	for i := range tt {
		for _, k := range []string{"sensitive_values", "before_sensitive", "after_sensitive"} {
			if _, ok := tf[i][k]; !ok {
				continue
			}
			a, b := generic(tf[i][k]), generic(tt[i][k])
			if covers(a, b) {
				tt[i][k] = tf[i][k]
			}
		}
	}
	return tt
}

func generic(v any) any {
	raw, _ := json.Marshal(v)
	var g any
	json.Unmarshal(raw, &g)
	return g
}

// covers reports whether sensitivity b marks everything a does.
func covers(a, b any) bool {
	switch a := a.(type) {
	case bool:
		return !a || b == true
	case map[string]any:
		if b == true {
			return true
		}
		bm, ok := b.(map[string]any)
		if !ok {
			return len(a) == 0 && (b == false || b == nil)
		}
		for k, v := range a {
			if !covers(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		if b == true {
			return true
		}
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return false
		}
		for i := range a {
			if !covers(a[i], bl[i]) {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return false
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
			var tf, tt side
			if mainTF != "" {
				tf, tt = twoSides(t, tools, caseDir)
			} else {
				env := diffEnv(tools)
				tf = side{name: "terraform", bin: tools.terraform, dir: t.TempDir(), env: env}
				tt = side{name: "tether", bin: tools.tether, dir: t.TempDir(), env: env}
				for _, s := range []side{tf, tt} {
					if err := os.WriteFile(filepath.Join(s.dir, "main.tf"), []byte(jsonConfigCase), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Join(s.dir, "none"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(s.dir, "none", "main.tf"), []byte(jsonConfigModule), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			a, b := both(tf, tt, func(s side) cmdResult {
				if s.name == "terraform" {
					if r := s.run("get", "-no-color"); r.code != 0 || r.err != nil {
						return r
					}
					if r := s.run("plan", "-input=false", "-no-color", "-out", "p.tfplan"); r.code != 0 || r.err != nil {
						return r
					}
				} else if r := s.run("plan", "-out", "p.tfplan"); r.code != 0 || r.err != nil {
					return r
				}
				return s.run("show", "-json", "p.tfplan")
			})
			mustSucceed(t, "plan -out, show -json", a, b)
			var parsed tfjson.Plan
			if err := json.Unmarshal([]byte(b.stdout), &parsed); err != nil {
				t.Fatalf("tether's plan JSON does not parse with terraform-json: %v", err)
			}
			if parsed.Config == nil {
				t.Fatalf("tether's plan JSON has no configuration")
			}
			compareJSON(t, "configuration", configurationOf(t, a.stdout), configurationOf(t, b.stdout))
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

func configurationOf(t *testing.T, planJSON string) any {
	t.Helper()
	var doc struct {
		Configuration json.RawMessage `json:"configuration"`
	}
	if err := json.Unmarshal([]byte(planJSON), &doc); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	return json.RawMessage(doc.Configuration)
}
