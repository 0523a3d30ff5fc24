package synth

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
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
	tools := e2e.SynthTools(t)
	for _, example := range []string{"hello", "goapp"} {
		t.Run(example, func(t *testing.T) {
			up := e2e.CopyExample(t, example)
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: up, Env: e2e.EnvForExample(t, tools, false)}
			tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "tf"), Env: e2e.EnvForExample(t, tools, true)}
			e2e.SynthInto(t, tools, example, tf.Dir)

			tfRes, ttRes := e2e.ApplyBoth(tf, tt)
			e2e.MustSucceed(t, "apply", tfRes, ttRes)
			if tfSum, ttSum := e2e.ApplySummary(tfRes.Stdout), e2e.ApplySummary(ttRes.Stdout); tfSum != ttSum {
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
			tfRes = tf.Run(e2e.TFPlan...)
			if tfRes.Code != 0 {
				t.Errorf("terraform's plan after applying the synthesised JSON must show no changes:\n%s", tfRes)
			}
			e2e.DestroyBoth(t, tf, tt)
		})
	}
}

// TestSynthPlansLikeTether plans the synthesised JSON of Go programs with
// terraform: it validates, and the plan creates as many resources as
// tether's plan of the program.
func TestSynthPlansLikeTether(t *testing.T) {
	t.Parallel()
	tools := e2e.SynthTools(t)
	for _, example := range []string{"echo"} {
		t.Run(example, func(t *testing.T) {
			dir := e2e.CopyExample(t, example)
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: e2e.EnvForExample(t, tools, false)}
			tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "tf"), Env: e2e.EnvForExample(t, tools, true)}
			e2e.SynthInto(t, tools, example, tf.Dir)
			if r := tf.Run("validate", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform validate of the synthesised JSON failed:\n%s", r)
			}
			tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
				if s.Name == "terraform" {
					return s.Run("plan", "-input=false", "-no-color")
				}
				return s.Run("plan")
			})
			e2e.MustSucceed(t, "plan", tfRes, ttRes)
			tfCount, ttCount := e2e.PlanCount(tfRes.Stdout), e2e.PlanCount(ttRes.Stdout)
			if tfCount == "" || tfCount != ttCount {
				t.Errorf("terraform plans %q, tether %q\n%s\n%s", tfCount, ttCount, tfRes, ttRes)
			}
			if example != "echo" {
				return
			}
			// The closure runs under terraform's provider from the
			// program synth wrote beside the JSON, and answers.
			r := tf.Run(e2e.TFApply...)
			t.Cleanup(func() { tf.Run(e2e.TFDestroy...) })
			if r.Code != 0 {
				t.Fatalf("terraform apply of the synthesised echo failed:\n%s", r)
			}
			echoAnswers(t, tf)
		})
	}
}

// echoAnswers checks that the echo example terraform applied answers
// Hello at its url output.
func echoAnswers(t *testing.T, tf e2e.Side) {
	t.Helper()
	url := strings.TrimSpace(tf.Run("output", "-raw", "url").Stdout)
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
	tools := e2e.SynthTools(t)
	emptyRC := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(emptyRC, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, example := range []string{"hello", "echo"} {
		t.Run(example, func(t *testing.T) {
			dir := e2e.CopyExample(t, example)
			out := filepath.Join(t.TempDir(), example+".tf")
			env := append(e2e.EnvForExample(t, tools, false), "TF_CLI_CONFIG_FILE="+emptyRC)
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: env}
			if r := tt.Run("synth", "-C", dir, "--out", out); r.Code != 0 {
				t.Fatalf("tether synth failed:\n%s", r)
			}
			tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: out, Env: env}
			if r := tf.Run("init", "-input=false", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform init of the synthesised folder failed:\n%s", r)
			}
			r := tf.Run(e2e.TFApply...)
			t.Cleanup(func() { tf.Run(e2e.TFDestroy...) })
			if r.Code != 0 {
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
			if r := tt.Run("synth", "-C", dir, "--out", out); r.Code != 0 {
				t.Fatalf("tether synth again failed:\n%s", r)
			}
			if r := tf.Run("init", "-input=false", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform init after synthesising again failed:\n%s", r)
			}
		})
	}
}

// normalizedOut reads the files a side wrote under out/, with what two
// runs cannot share replaced: the string its tether_random.suffix drew
// by RANDOM, the id of its tether_value.settings (where there is one) by
// ID, and a file's SHA-256 written in another by SHA256(name), which also
// checks that each side's checksum is that of its own file.
func normalizedOut(t *testing.T, s e2e.Side) map[string]string {
	t.Helper()
	drawn := map[string]string{}
	for _, want := range []struct{ addr, attr, as string }{
		{"tether_random.suffix", "result", "RANDOM"},
		{"tether_value.settings", "id", "ID"},
	} {
		args := []string{"state", "show", want.addr}
		if s.Name == "terraform" {
			args = append(args, "-no-color")
		}
		r := s.Run(args...)
		if want.addr == "tether_value.settings" && r.Code != 0 {
			continue // not every example declares one
		}
		m := regexp.MustCompile(`(?m)^\s*` + want.attr + `\s*=\s*"([^"]+)"`).FindStringSubmatch(r.Stdout)
		if r.Code != 0 || m == nil {
			t.Fatalf("cannot read the %s of %s on %s:\n%s", want.attr, want.addr, s.Name, r)
		}
		drawn[m[1]] = want.as
	}
	files, err := e2e.ReadTree(filepath.Join(s.Dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		drawn[fmt.Sprintf("%x", sha256.Sum256(f.Content))] = "SHA256(" + name + ")"
	}
	out := map[string]string{}
	for name, f := range files {
		content := string(f.Content)
		for from, to := range drawn {
			content = strings.ReplaceAll(content, from, to)
		}
		out[name] = fmt.Sprintf("%v\n%s", f.Mode, content)
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
	tools := e2e.SynthTools(t)
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"hcl", "go"} {
		t.Run(root, func(t *testing.T) {
			dir := t.TempDir()
			if err := e2e.CopyTree(filepath.Join("testdata", "synth", "modules"), dir, ""); err != nil {
				t.Fatal(err)
			}
			if root == "go" {
				providertest.GoModule(t, filepath.Join(dir, "go"), "example.com/modules", repo)
			}
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(dir, root), Env: e2e.EnvForExample(t, tools, false)}
			tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "tf"), Env: e2e.EnvForExample(t, tools, true)}
			if r := tt.Run("synth", "--out", tf.Dir); r.Code != 0 || r.Err != nil {
				t.Fatalf("tether synth failed: %v\n%s", r.Err, r)
			}
			if r := tf.Run("get", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform get of the synthesised JSON failed:\n%s", r)
			}
			tfRes, ttRes := e2e.ApplyBoth(tf, tt)
			e2e.MustSucceed(t, "apply", tfRes, ttRes)
			if tfSum, ttSum := e2e.ApplySummary(tfRes.Stdout), e2e.ApplySummary(ttRes.Stdout); tfSum != ttSum || tfSum != "6 added, 0 changed, 0 destroyed" {
				t.Errorf("terraform reports %q, tether %q, want 6 added\n%s\n%s", tfSum, ttSum, tfRes, ttRes)
			}
			for _, args := range [][]string{{"state", "list"}, {"output", "-json"}} {
				tfOut, ttOut := tf.Run(args...), tt.Run(args...)
				e2e.MustSucceed(t, strings.Join(args, " "), tfOut, ttOut)
				if !sameJSONOrText(tfOut.Stdout, ttOut.Stdout) {
					t.Errorf("%s differs\nterraform:\n%s\ntether:\n%s", strings.Join(args, " "), tfOut.Stdout, ttOut.Stdout)
				}
			}
			tfFiles, err := e2e.ReadTree(filepath.Join(tf.Dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			ttFiles, err := e2e.ReadTree(filepath.Join(tt.Dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			if len(tfFiles) != 6 || fmt.Sprint(tfFiles) != fmt.Sprint(ttFiles) {
				t.Errorf("terraform wrote %v under out/, tether %v", tfFiles, ttFiles)
			}
			if r := tf.Run(e2e.TFPlan...); r.Code != 0 {
				t.Errorf("terraform's plan after applying the synthesised JSON must show no changes:\n%s", r)
			}
			e2e.DestroyBoth(t, tf, tt)
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
