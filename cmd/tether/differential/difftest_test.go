package differential

// Differential tests: every configuration under testdata/diff is applied
// once by the real terraform, through Tether's built-in provider, and once
// by tether; the files they write and their root outputs must be equal.
//
// Running Terraform offline. The provider is found through a development
// override in a CLI configuration file (TF_CLI_CONFIG_FILE), so no
// `terraform init` is needed for it; `terraform init`, even with
// -backend=false, still queries registry.terraform.io for the overridden
// provider and fails without network ("Failed to query available provider
// packages"). Local modules, though, must be installed before plan or apply
// ("Module not installed"): `terraform get` installs them (it copies
// nothing for local sources, it only records them in
// .terraform/modules/modules.json) and never contacts a registry. So each
// apply is preceded by `terraform get`. Every module, not only the root,
// declares required_providers with source "tetherhq/tether": without it
// Terraform would look for hashicorp/tether in that module.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// differentialTools skips a differential test under -short or without
// terraform on the PATH; otherwise it marks the test parallel and returns
// the built tools.
func differentialTools(t *testing.T) e2e.DiffTools {
	t.Helper()
	if testing.Short() {
		t.Skip("differential tests build tether and its provider plugin, then run terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	t.Parallel()
	return e2e.BuildDiffTools(t)
}

// twoSides is a terraform and a tether side, each with its own copy of
// the case in caseDir.
func twoSides(t *testing.T, tools e2e.DiffTools, caseDir string) (tf, tt e2e.Side) {
	t.Helper()
	env := e2e.DiffEnv(tools)
	tf = e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt = e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(caseDir, s.Dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	return tf, tt
}

// TestDifferential applies every configuration in testdata/diff with the
// real terraform and with tether, in parallel subtests, and compares what
// they did. A case folder holds main.tf and any modules; an optional
// step2/ folder is copied over the case after the first apply and applied
// again (moved blocks, lifecycle settings).
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests build tether and its provider plugin, then run terraform and tether on every case in testdata/diff: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	t.Parallel()
	cases, err := filepath.Glob(filepath.Join("testdata", "diff", "*", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/diff")
	}
	tools := e2e.BuildDiffTools(t)
	for _, mainTF := range cases {
		caseDir := filepath.Dir(mainTF)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			runDiffCase(t, tools, caseDir)
		})
	}
}

func runDiffCase(t *testing.T, tools e2e.DiffTools, caseDir string) {
	env := e2e.DiffEnv(tools)
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(caseDir, s.Dir, "step2"); err != nil {
			t.Fatal(err)
		}
	}
	steps := []string{""}
	if fi, err := os.Stat(filepath.Join(caseDir, "step2")); err == nil && fi.IsDir() {
		steps = append(steps, "step2")
	}
	// Everything the tools write, out/ included, is under t.TempDir(): a
	// case that fails half-way leaves nothing behind.
	for _, step := range steps {
		label := "first apply"
		if step != "" {
			label = step
			for _, s := range []e2e.Side{tf, tt} {
				if err := e2e.CopyTree(filepath.Join(caseDir, step), s.Dir, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		tfRes, ttRes := getAndApplyBoth(tf, tt)
		checkApplied(t, label, tf, tt, tfRes, ttRes)
		if t.Failed() {
			return
		}
	}

	e2e.DestroyBoth(t, tf, tt)
	for _, s := range []e2e.Side{tf, tt} {
		files, err := e2e.ReadTree(filepath.Join(s.Dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) > 0 {
			t.Errorf("after %s destroy, out/ still holds %s", s.Name, strings.Join(e2e.SortedNames(files), ", "))
		}
	}
}

// checkApplied compares what an apply did on the two sides (summaries,
// files under out/, outputs), then checks that a second plan is clean on
// both.
func checkApplied(t *testing.T, label string, tf, tt e2e.Side, tfRes, ttRes e2e.CmdResult) {
	t.Helper()
	e2e.MustSucceed(t, label, tfRes, ttRes)
	if tfSum, ttSum := e2e.ApplySummary(tfRes.Stdout), e2e.ApplySummary(ttRes.Stdout); tfSum != ttSum {
		t.Errorf("%s: terraform reports %q, tether %q\n%s\n%s", label, tfSum, ttSum, tfRes, ttRes)
	}
	compareOut(t, label, tf.Dir, tt.Dir)
	compareOutputs(t, label, tf, tt)
	compareState(t, label, tf, tt)
	tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run(e2e.TFPlan...)
		}
		return s.Run(e2e.TTPlan...)
	})
	for _, r := range []e2e.CmdResult{tfRes, ttRes} {
		if r.Code != 0 || r.Err != nil {
			t.Errorf("%s: the plan after applying must show no changes (exit 0):\n%s", label, r)
		}
	}
}

// getAndApplyBoth is ApplyBoth after terraform get, which a configuration
// calling local modules needs first.
func getAndApplyBoth(tf, tt e2e.Side) (e2e.CmdResult, e2e.CmdResult) {
	return e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			if r := s.Run("get", "-no-color"); r.Code != 0 || r.Err != nil {
				return r
			}
		}
		return e2e.ApplyOne(s)
	})
}

// compareOut compares every file under out/ of the two copies: the same
// names, the same bytes, the same permissions.
func compareOut(t *testing.T, label, tfDir, ttDir string) {
	t.Helper()
	tfFiles, err := e2e.ReadTree(filepath.Join(tfDir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	ttFiles, err := e2e.ReadTree(filepath.Join(ttDir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tfFiles) == 0 {
		t.Errorf("%s: terraform wrote nothing under out/: the case compares nothing", label)
	}
	for _, name := range e2e.SortedNames(tfFiles) {
		a := tfFiles[name]
		b, ok := ttFiles[name]
		switch {
		case !ok:
			t.Errorf("%s: out/%s written by terraform is missing from tether's out/", label, name)
		case !bytes.Equal(a.Content, b.Content):
			t.Errorf("%s: out/%s differs\nterraform:\n%s\ntether:\n%s", label, name, a.Content, b.Content)
		case a.Mode != b.Mode:
			t.Errorf("%s: out/%s has mode %v from terraform, %v from tether", label, name, a.Mode, b.Mode)
		}
	}
	for _, name := range e2e.SortedNames(ttFiles) {
		if _, ok := tfFiles[name]; !ok {
			t.Errorf("%s: tether wrote out/%s, which terraform did not", label, name)
		}
	}
}

// jsonOutput is one root output as `output -json` prints it.
type jsonOutput struct {
	Sensitive bool            `json:"sensitive"`
	Value     json.RawMessage `json:"value"`
}

func readOutputs(s e2e.Side) (map[string]jsonOutput, e2e.CmdResult, error) {
	args := e2e.TTOutput
	if s.Name == "terraform" {
		args = e2e.TFOutput
	}
	r := s.Run(args...)
	if r.Code != 0 || r.Err != nil {
		return nil, r, fmt.Errorf("%s output failed", s.Name)
	}
	outs := map[string]jsonOutput{}
	if err := json.Unmarshal([]byte(r.Stdout), &outs); err != nil {
		return nil, r, fmt.Errorf("%s output is not JSON: %v", s.Name, err)
	}
	return outs, r, nil
}

// compareOutputs compares the root outputs' names, sensitivity and values
// (as JSON values: 3 and 3.0 are equal, key order does not matter).
func compareOutputs(t *testing.T, label string, tf, tt e2e.Side) {
	t.Helper()
	type res struct {
		outs map[string]jsonOutput
		r    e2e.CmdResult
		err  error
	}
	a, b := e2e.Both(tf, tt, func(s e2e.Side) res {
		o, r, err := readOutputs(s)
		return res{o, r, err}
	})
	for _, x := range []res{a, b} {
		if x.err != nil {
			t.Fatalf("%s: %v\n%s", label, x.err, x.r)
		}
	}
	for _, name := range e2e.SortedNames(a.outs) {
		want := a.outs[name]
		got, ok := b.outs[name]
		if !ok {
			t.Errorf("%s: output %q from terraform is missing from tether's outputs", label, name)
			continue
		}
		if want.Sensitive != got.Sensitive {
			t.Errorf("%s: output %q: sensitive is %v in terraform, %v in tether", label, name, want.Sensitive, got.Sensitive)
			continue
		}
		if want.Sensitive {
			continue // tether keeps sensitive values off stdout, in JSON too
		}
		if !jsonEqual(want.Value, got.Value) {
			t.Errorf("%s: output %q differs\nterraform: %s\ntether:    %s", label, name, want.Value, got.Value)
		}
	}
	for _, name := range e2e.SortedNames(b.outs) {
		if _, ok := a.outs[name]; !ok {
			t.Errorf("%s: tether has output %q, which terraform does not", label, name)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// unknownCase is a configuration whose count, for_each or dynamic
// collection is known only after apply. Terraform refuses it; tether must
// plan it, converge in one `up`, and then show no changes.
type unknownCase struct {
	name  string
	files map[string]string
	// planShows are regular expressions the first plan's output must
	// match.
	planShows []string
	// want computes the outputs and the files under out/ expected after
	// the up, from what only the run can know (random strings), read back
	// from the outputs.
	want func(t *testing.T, outs map[string]any) (outputs map[string]any, files map[string]string)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// distinctChars returns the distinct characters of s, sorted.
func distinctChars(s string) []string {
	seen := map[string]bool{}
	for _, r := range s {
		seen[string(r)] = true
	}
	return e2e.SortedNames(seen)
}

func stringOutput(t *testing.T, outs map[string]any, name string) string {
	t.Helper()
	s, ok := outs[name].(string)
	if !ok {
		t.Fatalf("output %q is %#v, want a string", name, outs[name])
	}
	return s
}

var unknownCases = []unknownCase{
	{
		name: "for_each_over_random",
		files: map[string]string{"main.tf": `
resource "tether_random" "r" {
  length     = 6
  characters = "abc"
}

resource "tether_file" "x" {
  for_each = toset([for i in range(6) : substr(tether_random.r.result, i, 1)])
  path     = "out/${each.key}.txt"
  content  = "${each.value}\n"
}

output "result" {
  value = tether_random.r.result
}

output "paths" {
  value = { for k, f in tether_file.x : k => f.path }
}
`},
		planShows: []string{`tether_file\.x\[\*\] will be created once tether_random\.r is known`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			paths := map[string]any{}
			files := map[string]string{}
			for _, c := range distinctChars(result) {
				paths[c] = "out/" + c + ".txt"
				files[c+".txt"] = c + "\n"
			}
			return map[string]any{"result": result, "paths": paths}, files
		},
	},
	{
		name: "count_over_computed_value",
		files: map[string]string{"main.tf": `
resource "tether_random" "r" {
  length = 3
}

# tether_value's output is its input, so n is known only once r is.
resource "tether_value" "n" {
  input = length(tether_random.r.result)
}

resource "tether_file" "c" {
  count   = tether_value.n.output
  path    = "out/c${count.index}.txt"
  content = "${count.index} of ${tether_value.n.output}\n"
}

output "paths" {
  value = tether_file.c[*].path
}

output "count" {
  value = length(tether_file.c)
}
`},
		planShows: []string{`tether_file\.c\[\*\] will be created once tether_value\.n is known`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			return map[string]any{
					"paths": []any{"out/c0.txt", "out/c1.txt", "out/c2.txt"},
					"count": 3.0,
				}, map[string]string{
					"c0.txt": "0 of 3\n", "c1.txt": "1 of 3\n", "c2.txt": "2 of 3\n",
				}
		},
	},
	{
		name: "count_over_random",
		files: map[string]string{"main.tf": `
resource "tether_random" "r" {
  length     = 8
  characters = "ab"
}

resource "tether_file" "a" {
  count   = length(regexall("a", tether_random.r.result))
  path    = "out/a${count.index}.txt"
  content = "a\n"
}

output "result" {
  value = tether_random.r.result
}

output "count" {
  value = length(tether_file.a)
}
`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			n := strings.Count(result, "a")
			files := map[string]string{}
			for i := range n {
				files[fmt.Sprintf("a%d.txt", i)] = "a\n"
			}
			return map[string]any{"result": result, "count": float64(n)}, files
		},
	},
	{
		name: "dynamic_over_computed_list",
		files: map[string]string{"main.tf": `
resource "tether_value" "names" {
  input = ["a", "b", "c"]
}

resource "tether_random" "r" {
  length     = 4
  characters = "xyz"
}

resource "tether_bundle" "b" {
  dir = "out/bundle"

  file {
    path    = "static.txt"
    content = "static\n"
  }

  dynamic "file" {
    for_each = tether_value.names.output
    content {
      path    = "${file.value}.txt"
      content = "${upper(file.value)}\n"
    }
  }

  dynamic "file" {
    for_each = toset([for i in range(4) : substr(tether_random.r.result, i, 1)])
    iterator = ch
    content {
      path    = "random/${ch.key}"
      content = "${tether_random.r.result}\n"
    }
  }
}

output "result" {
  value = tether_random.r.result
}

output "count" {
  value = tether_bundle.b.file_count
}

output "paths" {
  value = tether_bundle.b.file[*].path
}
`},
		planShows: []string{`\+ file \(known after apply\)`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			paths := []any{"static.txt", "a.txt", "b.txt", "c.txt"}
			files := map[string]string{
				"bundle/static.txt": "static\n",
				"bundle/a.txt":      "A\n", "bundle/b.txt": "B\n", "bundle/c.txt": "C\n",
			}
			for _, c := range distinctChars(result) {
				paths = append(paths, "random/"+c)
				files["bundle/random/"+c] = result + "\n"
			}
			return map[string]any{"result": result, "count": float64(len(paths)), "paths": paths}, files
		},
	},
	{
		// Nested dynamic blocks whose labels come from a collection known
		// only after apply: the labels are unknown while planning.
		name: "nested_dynamic_labels_over_random",
		files: map[string]string{"main.tf": `
resource "tether_random" "r" {
  length     = 4
  characters = "abc"
}

resource "tether_bundle" "b" {
  dir = "out/bundle"

  file {
    path    = "headed.txt"
    content = "body\n"

    dynamic "header" {
      for_each = toset([for i in range(4) : upper(substr(tether_random.r.result, i, 1))])
      iterator = h
      labels   = ["X-${h.key}"]
      content {
        value = lower(h.value)
      }
    }
  }

  dynamic "file" {
    for_each = toset([for i in range(4) : substr(tether_random.r.result, i, 1)])
    content {
      path    = "${file.key}.txt"
      content = "${file.value}\n"

      dynamic "header" {
        for_each = { Char = file.value, Result = tether_random.r.result }
        labels   = [header.key]
        content {
          value = header.value
        }
      }
    }
  }
}

output "result" {
  value = tether_random.r.result
}

output "count" {
  value = tether_bundle.b.file_count
}
`},
		planShows: []string{`\+ file \(known after apply\)`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			headers := ""
			files := map[string]string{}
			for _, c := range distinctChars(result) {
				headers += "X-" + strings.ToUpper(c) + ": " + c + "\n"
				files["bundle/"+c+".txt"] = "Char: " + c + "\nResult: " + result + "\n\n" + c + "\n"
			}
			files["bundle/headed.txt"] = headers + "\nbody\n"
			return map[string]any{"result": result, "count": float64(len(files))}, files
		},
	},
	{
		name: "module_for_each_over_computed_set",
		files: map[string]string{
			"main.tf": `
resource "tether_random" "r" {
  length     = 4
  characters = "xyz"
}

resource "tether_value" "csv" {
  input = "red,green,${tether_random.r.result}"
}

module "m" {
  source   = "./mod"
  for_each = toset(split(",", tether_value.csv.output))
  name     = each.key
}

output "result" {
  value = tether_random.r.result
}

output "paths" {
  value = { for k, m in module.m : k => m.path }
}
`,
			"mod/main.tf": `
variable "name" {
  type = string
}

resource "tether_file" "f" {
  path    = "out/${var.name}.txt"
  content = "colour ${var.name}\n"
}

output "path" {
  value = tether_file.f.path
}
`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			paths := map[string]any{}
			files := map[string]string{}
			for _, name := range []string{"red", "green", result} {
				paths[name] = "out/" + name + ".txt"
				files[name+".txt"] = "colour " + name + "\n"
			}
			return map[string]any{"result": result, "paths": paths}, files
		},
	},
	{
		name: "chained_deferral",
		files: map[string]string{"main.tf": `
resource "tether_random" "r" {
  length     = 5
  characters = "pq"
}

resource "tether_file" "first" {
  for_each = toset([for i in range(5) : substr(tether_random.r.result, i, 1)])
  path     = "out/first/${each.key}.txt"
  content  = "${each.key}\n"
}

# Its for_each is the instances of a resource that is itself deferred.
resource "tether_file" "second" {
  for_each = tether_file.first
  path     = "out/second/${each.key}.txt"
  content  = "${each.value.sha256}\n"
}

output "result" {
  value = tether_random.r.result
}

output "second" {
  value = { for k, f in tether_file.second : k => f.content }
}
`},
		want: func(t *testing.T, outs map[string]any) (map[string]any, map[string]string) {
			result := stringOutput(t, outs, "result")
			second := map[string]any{}
			files := map[string]string{}
			for _, c := range distinctChars(result) {
				sum := sha256Hex(c+"\n") + "\n"
				second[c] = sum
				files["first/"+c+".txt"] = c + "\n"
				files["second/"+c+".txt"] = sum
			}
			return map[string]any{"result": result, "second": second}, files
		},
	},
}

// TestUnknownCollections runs configurations that Terraform refuses
// ("The for_each value depends on resource attributes that cannot be
// determined until apply") with tether alone: the plan says what waits for
// what, one `up` converges, the outputs and files are the ones expected,
// and a second plan shows no changes.
func TestUnknownCollections(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tether binary and runs up, plan and destroy on every case: skipped with -short")
	}
	t.Parallel()
	tools := e2e.BuildDiffTools(t)
	env := e2e.DiffEnv(tools)
	for _, tc := range unknownCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: t.TempDir(), Env: env}
			for name, text := range tc.files {
				path := filepath.Join(tt.Dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			r := tt.Run(e2e.TTPlan...)
			if r.Code != 2 {
				t.Fatalf("the first plan must succeed with changes (exit 2):\n%s", r)
			}
			for _, re := range tc.planShows {
				if !regexp.MustCompile(re).MatchString(r.Stdout) {
					t.Errorf("the first plan does not show %q:\n%s", re, r)
				}
			}

			r = tt.Run(e2e.TTApply...)
			e2e.MustSucceed(t, "up", r)

			outs, r, err := readOutputs(tt)
			if err != nil {
				t.Fatalf("%v\n%s", err, r)
			}
			got := map[string]any{}
			for name, o := range outs {
				var v any
				if err := json.Unmarshal(o.Value, &v); err != nil {
					t.Fatalf("output %q: %v", name, err)
				}
				got[name] = v
			}
			wantOuts, wantFiles := tc.want(t, got)
			if !reflect.DeepEqual(got, wantOuts) {
				t.Errorf("outputs after one up:\n got: %#v\nwant: %#v", got, wantOuts)
			}
			files, err := e2e.ReadTree(filepath.Join(tt.Dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			gotFiles := map[string]string{}
			for name, f := range files {
				gotFiles[name] = string(f.Content)
			}
			if !reflect.DeepEqual(gotFiles, wantFiles) {
				t.Errorf("files under out/ after one up:\n got: %q\nwant: %q", gotFiles, wantFiles)
			}

			if r := tt.Run(e2e.TTPlan...); r.Code != 0 {
				t.Errorf("the plan after one up must show no changes (exit 0):\n%s", r)
			}

			r = tt.Run(e2e.TTDestroy...)
			e2e.MustSucceed(t, "destroy", r)
			if files, err := e2e.ReadTree(filepath.Join(tt.Dir, "out")); err != nil {
				t.Fatal(err)
			} else if len(files) > 0 {
				t.Errorf("after destroy, out/ still holds %s", strings.Join(e2e.SortedNames(files), ", "))
			}
		})
	}
}
