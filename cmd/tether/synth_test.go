package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

// The synth tests run what `tether synth` writes with the real terraform
// binary and the built-in provider's plugin build (the dev override the
// differential tests use), next to `tether up` of the same example.

// TestSynthAppliesLikeUp applies the synthesised JSON of an example with
// terraform and the example itself with tether: the same number of
// resources is created, and the same files are written, but for the
// random string each run draws.
func TestSynthAppliesLikeUp(t *testing.T) {
	t.Parallel()
	tools := synthTools(t)
	for _, example := range []string{"hello", "goapp"} {
		t.Run(example, func(t *testing.T) {
			up := exampleCopy(t, example)
			tt := side{name: "tether", bin: tools.tether, dir: up, env: exampleEnv(t, tools, false)}
			tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "tf"), env: exampleEnv(t, tools, true)}
			synthInto(t, tools, example, tf.dir)

			tfRes, ttRes := applyBoth(tf, tt)
			mustSucceed(t, "apply", tfRes, ttRes)
			if tfSum, ttSum := applySummary(tfRes.stdout), applySummary(ttRes.stdout); tfSum != ttSum {
				t.Errorf("terraform reports %q, tether %q\n%s\n%s", tfSum, ttSum, tfRes, ttRes)
			}
			tfFiles, ttFiles := normalizedOut(t, tf), normalizedOut(t, tt)
			if len(tfFiles) == 0 {
				t.Fatalf("terraform wrote nothing under out/: the case compares nothing")
			}
			for name, content := range tfFiles {
				if got, ok := ttFiles[name]; !ok {
					t.Errorf("out/%s written by terraform is missing from tether's", name)
				} else if got != content {
					t.Errorf("out/%s differs\nterraform:\n%s\ntether:\n%s", name, content, got)
				}
			}
			for name := range ttFiles {
				if _, ok := tfFiles[name]; !ok {
					t.Errorf("tether wrote out/%s, which terraform did not", name)
				}
			}
			tfRes = tf.run(tfPlan...)
			if tfRes.code != 0 {
				t.Errorf("terraform's plan after applying the synthesised JSON must show no changes:\n%s", tfRes)
			}
			destroyBoth(t, tf, tt)
		})
	}
}

// TestSynthPlansLikeTether plans the synthesised JSON of Go programs with
// terraform: it validates, and the plan creates as many resources as
// tether's plan of the program.
func TestSynthPlansLikeTether(t *testing.T) {
	t.Parallel()
	tools := synthTools(t)
	for _, example := range []string{"echo"} {
		t.Run(example, func(t *testing.T) {
			dir := exampleCopy(t, example)
			tt := side{name: "tether", bin: tools.tether, dir: dir, env: exampleEnv(t, tools, false)}
			tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "tf"), env: exampleEnv(t, tools, true)}
			synthInto(t, tools, example, tf.dir)
			if r := tf.run("validate", "-no-color"); r.code != 0 {
				t.Fatalf("terraform validate of the synthesised JSON failed:\n%s", r)
			}
			tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
				if s.name == "terraform" {
					return s.run("plan", "-input=false", "-no-color")
				}
				return s.run("plan")
			})
			mustSucceed(t, "plan", tfRes, ttRes)
			tfCount, ttCount := planCount(tfRes.stdout), planCount(ttRes.stdout)
			if tfCount == "" || tfCount != ttCount {
				t.Errorf("terraform plans %q, tether %q\n%s\n%s", tfCount, ttCount, tfRes, ttRes)
			}
			if example != "echo" {
				return
			}
			// The closure runs under terraform's provider from the
			// program synth wrote beside the JSON, and answers.
			r := tf.run(tfApply...)
			t.Cleanup(func() { tf.run(tfDestroy...) })
			if r.code != 0 {
				t.Fatalf("terraform apply of the synthesised echo failed:\n%s", r)
			}
			echoAnswers(t, tf)
		})
	}
}

// echoAnswers checks that the echo example terraform applied answers
// Hello at its url output.
func echoAnswers(t *testing.T, tf side) {
	t.Helper()
	url := strings.TrimSpace(tf.run("output", "-raw", "url").stdout)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the url output is %q, not a loopback URL", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "Hello" {
		t.Errorf("GET %s answered %d %q, want Hello", url, resp.StatusCode, body)
	}
}

// TestSynthInitsAsPrinted runs the synth example of docs/synth.md as printed:
// tether synth, then terraform init and apply in the output folder, with
// a Terraform CLI configuration that holds nothing (no dev override of
// the built-in provider, no registry in reach). Terraform installs the
// built-in provider from the terraform.d/plugins synth writes, and again
// once synth has written another build of it.
func TestSynthInitsAsPrinted(t *testing.T) {
	t.Parallel()
	tools := synthTools(t)
	emptyRC := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(emptyRC, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, example := range []string{"hello", "echo"} {
		t.Run(example, func(t *testing.T) {
			dir := exampleCopy(t, example)
			out := filepath.Join(t.TempDir(), example+".tf")
			env := append(exampleEnv(t, tools, false), "TF_CLI_CONFIG_FILE="+emptyRC)
			tt := side{name: "tether", bin: tools.tether, dir: dir, env: env}
			if r := tt.run("synth", "-C", dir, "--out", out); r.code != 0 {
				t.Fatalf("tether synth failed:\n%s", r)
			}
			tf := side{name: "terraform", bin: tools.terraform, dir: out, env: env}
			if r := tf.run("init", "-input=false", "-no-color"); r.code != 0 {
				t.Fatalf("terraform init of the synthesised folder failed:\n%s", r)
			}
			r := tf.run(tfApply...)
			t.Cleanup(func() { tf.run(tfDestroy...) })
			if r.code != 0 {
				t.Fatalf("terraform apply of the synthesised folder failed:\n%s", r)
			}
			if example == "echo" {
				echoAnswers(t, tf)
				return
			}
			// Synthesised again by another build of tether (here: the
			// lock file made to hold another checksum), init still works.
			lock := filepath.Join(out, ".terraform.lock.hcl")
			text, err := os.ReadFile(lock)
			if err != nil {
				t.Fatal(err)
			}
			other := regexp.MustCompile(`"h1:[A-Za-z0-9+/=]+"`).ReplaceAll(text, []byte(`"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`))
			if err := os.WriteFile(lock, other, 0o644); err != nil {
				t.Fatal(err)
			}
			if r := tt.run("synth", "-C", dir, "--out", out); r.code != 0 {
				t.Fatalf("tether synth again failed:\n%s", r)
			}
			if r := tf.run("init", "-input=false", "-no-color"); r.code != 0 {
				t.Fatalf("terraform init after synthesising again failed:\n%s", r)
			}
		})
	}
}

var planCountRE = regexp.MustCompile(`Plan: (\d+) to add, (\d+) to change, (\d+) to destroy`)

func planCount(stdout string) string {
	if m := planCountRE.FindString(stdout); m != "" {
		return m
	}
	return ""
}

func synthTools(t *testing.T) diffTools {
	t.Helper()
	if testing.Short() {
		t.Skip("builds tether, its provider plugin and examples, and runs terraform: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the synth tests run what tether synth writes with the terraform 1.11 binary")
	}
	return buildDiffTools(t)
}

// synthInto runs tether synth on a fresh copy of an example, writing to
// out, and terraform get there, which installs the modules synth wrote
// (init would look the dev-overridden provider up in the registry).
func synthInto(t *testing.T, tools diffTools, example, out string) {
	t.Helper()
	s := side{name: "tether", bin: tools.tether, dir: exampleCopy(t, example), env: exampleEnv(t, tools, false)}
	if r := s.run("synth", "--out", out); r.code != 0 || r.err != nil {
		t.Fatalf("tether synth failed: %v\n%s", r.err, r)
	}
	tf := side{name: "terraform", bin: tools.terraform, dir: out, env: exampleEnv(t, tools, true)}
	if r := tf.run("get", "-no-color"); r.code != 0 {
		t.Fatalf("terraform get of the synthesised JSON failed:\n%s", r)
	}
}

// exampleCopy copies examples/NAME to a temporary folder, without what a
// run there left behind; a Go program gets a go.mod that builds it with
// this repository's SDK, offline.
func exampleCopy(t *testing.T, name string) string {
	t.Helper()
	return exampleCopyTo(t, name, filepath.Join(t.TempDir(), name))
}

// exampleCopyTo is exampleCopy into dir.
func exampleCopyTo(t *testing.T, name, dir string) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Join(repo, "examples", name), dir, ""); err != nil {
		t.Fatal(err)
	}
	for _, leftover := range []string{"out", ".tether", "tether.out"} {
		os.RemoveAll(filepath.Join(dir, leftover))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(m) > 0 {
		providertest.GoModule(t, dir, "example.com/"+name, repo)
	}
	return dir
}

// exampleEnv is diffEnv with the go command kept offline and building
// with the example's own go.mod. Tether runs its built-in provider in
// process, not the plugin build terraform is pointed at: a plugin's
// schema over the protocol lacks what the SDK's closures need.
func exampleEnv(t testing.TB, tools diffTools, forTerraform bool) []string {
	var env []string
	for _, kv := range diffEnv(tools) {
		if forTerraform || !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			env = append(env, kv)
		}
	}
	return append(env, providertest.OfflineGoEnv(t)...)
}

// normalizedOut reads the files a side wrote under out/, with what two
// runs cannot share replaced: the string its tether_random.suffix drew
// by RANDOM, the id of its tether_value.settings (where there is one) by
// ID, and a file's SHA-256 written in another by SHA256(name), which also
// checks that each side's checksum is that of its own file.
func normalizedOut(t *testing.T, s side) map[string]string {
	t.Helper()
	drawn := map[string]string{}
	for _, want := range []struct{ addr, attr, as string }{
		{"tether_random.suffix", "result", "RANDOM"},
		{"tether_value.settings", "id", "ID"},
	} {
		args := []string{"state", "show", want.addr}
		if s.name == "terraform" {
			args = append(args, "-no-color")
		}
		r := s.run(args...)
		if want.addr == "tether_value.settings" && r.code != 0 {
			continue // not every example declares one
		}
		m := regexp.MustCompile(`(?m)^\s*` + want.attr + `\s*=\s*"([^"]+)"`).FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil {
			t.Fatalf("cannot read the %s of %s on %s:\n%s", want.attr, want.addr, s.name, r)
		}
		drawn[m[1]] = want.as
	}
	files, err := readTree(filepath.Join(s.dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		drawn[fmt.Sprintf("%x", sha256.Sum256(f.content))] = "SHA256(" + name + ")"
	}
	out := map[string]string{}
	for name, f := range files {
		content := string(f.content)
		for from, to := range drawn {
			content = strings.ReplaceAll(content, from, to)
		}
		out[name] = fmt.Sprintf("%v\n%s", f.mode, content)
	}
	return out
}

// TestSynthModuleCalls synthesises a root calling a local module (with a
// nested module, for_each, a sensitive variable and outputs, depends_on
// both ways), once as HCL and once as a Go program calling it with
// tether.Module, into a folder elsewhere. Terraform reads the module from
// its own folder through the module block synth writes: terraform get and
// apply there record the same addresses and outputs, and write the same
// files, as tether up of the root, and plan clean after.
func TestSynthModuleCalls(t *testing.T) {
	t.Parallel()
	tools := synthTools(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"hcl", "go"} {
		t.Run(root, func(t *testing.T) {
			dir := t.TempDir()
			if err := copyTree(filepath.Join("testdata", "synth", "modules"), dir, ""); err != nil {
				t.Fatal(err)
			}
			if root == "go" {
				providertest.GoModule(t, filepath.Join(dir, "go"), "example.com/modules", repo)
			}
			tt := side{name: "tether", bin: tools.tether, dir: filepath.Join(dir, root), env: exampleEnv(t, tools, false)}
			tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "tf"), env: exampleEnv(t, tools, true)}
			if r := tt.run("synth", "--out", tf.dir); r.code != 0 || r.err != nil {
				t.Fatalf("tether synth failed: %v\n%s", r.err, r)
			}
			if r := tf.run("get", "-no-color"); r.code != 0 {
				t.Fatalf("terraform get of the synthesised JSON failed:\n%s", r)
			}
			tfRes, ttRes := applyBoth(tf, tt)
			mustSucceed(t, "apply", tfRes, ttRes)
			if tfSum, ttSum := applySummary(tfRes.stdout), applySummary(ttRes.stdout); tfSum != ttSum || tfSum != "6 added, 0 changed, 0 destroyed" {
				t.Errorf("terraform reports %q, tether %q, want 6 added\n%s\n%s", tfSum, ttSum, tfRes, ttRes)
			}
			for _, args := range [][]string{{"state", "list"}, {"output", "-json"}} {
				tfOut, ttOut := tf.run(args...), tt.run(args...)
				mustSucceed(t, strings.Join(args, " "), tfOut, ttOut)
				if !sameJSONOrText(tfOut.stdout, ttOut.stdout) {
					t.Errorf("%s differs\nterraform:\n%s\ntether:\n%s", strings.Join(args, " "), tfOut.stdout, ttOut.stdout)
				}
			}
			tfFiles, err := readTree(filepath.Join(tf.dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			ttFiles, err := readTree(filepath.Join(tt.dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			if len(tfFiles) != 6 || fmt.Sprint(tfFiles) != fmt.Sprint(ttFiles) {
				t.Errorf("terraform wrote %v under out/, tether %v", tfFiles, ttFiles)
			}
			if r := tf.run(tfPlan...); r.code != 0 {
				t.Errorf("terraform's plan after applying the synthesised JSON must show no changes:\n%s", r)
			}
			destroyBoth(t, tf, tt)
		})
	}
}

// sameJSONOrText compares two outputs as JSON values when both are JSON,
// else as sets of lines: state list orders the same addresses otherwise
// (terraform lists the root module's first).
func sameJSONOrText(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil {
		return reflect.DeepEqual(x, y)
	}
	la, lb := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	sort.Strings(la)
	sort.Strings(lb)
	return strings.Join(la, "\n") == strings.Join(lb, "\n")
}
