package differential

// Differential tests of the built-in functions: each folder of
// testdata/functions is one function family as a configuration of outputs
// only (no provider, so terraform needs no init), applied by the real
// terraform and by tether; their outputs must be equal. Calls that must
// fail are run one per configuration, and both tools must refuse each at
// the same line. The functions whose results differ at each call are
// checked by what their results must satisfy, on both sides alike.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tetherhq/tether/internal/e2e"
)

func skipWithoutTerraform(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("differential tests build tether and run terraform: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
}

// sides makes a terraform and a tether copy of the files under src (when
// not "") and of files (name to text).
func sides(t *testing.T, tools e2e.DiffTools, src string, files map[string]string) (e2e.Side, e2e.Side) {
	t.Helper()
	env := e2e.DiffEnv(tools)
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	for _, s := range []e2e.Side{tf, tt} {
		if src != "" {
			if err := e2e.CopyTree(src, s.Dir, ""); err != nil {
				t.Fatal(err)
			}
		}
		for name, text := range files {
			path := filepath.Join(s.Dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tf, tt
}

func TestFunctionsDifferential(t *testing.T) {
	skipWithoutTerraform(t)
	t.Parallel()
	families, err := filepath.Glob(filepath.Join("testdata", "functions", "*", "main.tf"))
	if err != nil || len(families) == 0 {
		t.Fatalf("no function families in testdata/functions (%v)", err)
	}
	tools := e2e.BuildDiffTools(t)
	for _, mainTF := range families {
		dir := filepath.Dir(mainTF)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			tf, tt := sides(t, tools, dir, nil)
			tfRes, ttRes := getAndApplyBoth(tf, tt)
			e2e.MustSucceed(t, "apply", tfRes, ttRes)
			compareOutputs(t, "apply", tf, tt)
		})
	}
}

// functionErrors are calls both tools must refuse, by family.
var functionErrors = map[string][]string{
	"strings": {
		`format("%d", "x")`,
		`regex("(", "x")`,
		`substr("abc", 0, "x")`,
		`templatestring("literal", {})`,
	},
	"collections": {
		`sum([])`,
		`sum(["a"])`,
		`lookup(tomap({ a = "x" }), "b")`,
		`lookup({ a = 1 }, "b")`,
		`lookup("x", "a")`,
		`lookup({ a = 1 }, "a", 1, 2)`,
		`element([], 0)`,
		`matchkeys(["a"], ["x", "y"], ["x"])`,
		`index(["a"], "z")`,
		`one(["a", "b"])`,
		`transpose({ a = [null] })`,
		`contains(["a"], null)`,
	},
	"encoding": {
		`base64decode("%%%")`,
		`textencodebase64("x", "NOT-AN-ENCODING")`,
		`textdecodebase64("!!", "UTF-8")`,
		`yamldecode("a: [")`,
		`jsondecode("{")`,
	},
	"filesystem": {
		`file("missing.txt")`,
		`file("binary.bin")`,
		`fileexists("tree")`,
		`templatefile("missing.tftpl", {})`,
		`templatefile("greeting.tftpl", {})`,
		`templatefile("greeting.tftpl", "x")`,
		`templatefile("recursive.tftpl", {})`,
		`pathexpand("~someone/x")`,
	},
	"hash_crypto": {
		`filemd5("missing.txt")`,
		`filebase64sha256("missing.txt")`,
		`uuidv5("bogus", "x")`,
		`rsadecrypt("bm90IGVuY3J5cHRlZA==", "not a key")`,
		`rsadecrypt("%%%", "not a key")`,
	},
	"ip_network": {
		`cidrhost("10.0.0.0/8", 16777216)`,
		`cidrhost("not-a-cidr", 1)`,
		`cidrnetmask("fd00::/8")`,
		`cidrsubnet("10.0.0.0/30", 4, 0)`,
		`cidrsubnets("10.0.0.0/24", 0)`,
		`cidrsubnets("10.0.0.0/30", 1, 1, 1)`,
	},
	"date_time": {
		`timecmp("2017-11-22", "2017-11-22T00:00:00Z")`,
		`timeadd("2017-11-22T00:00:00Z", "1x")`,
		`formatdate("YYYY", "yesterday")`,
	},
	"type_conversion": {
		`tonumber("x")`,
		`tobool("maybe")`,
		`core::nosuchfunction(1)`,
		`nosuchfunction(1)`,
	},
}

// failLine finds where each tool says the error is: Terraform's "on
// main.tf line N", tether's "main.tf:N:C".
var (
	tfErrorAt = regexp.MustCompile(`on main\.tf line (\d+)`)
	ttErrorAt = regexp.MustCompile(`main\.tf:(\d+):\d+`)
)

// TestFunctionErrorsDifferential plans each call of functionErrors with
// both tools: both must refuse it (exit 1) and place the error at the
// call's line.
func TestFunctionErrorsDifferential(t *testing.T) {
	skipWithoutTerraform(t)
	t.Parallel()
	tools := e2e.BuildDiffTools(t)
	var calls []errorCall
	for family, exprs := range functionErrors {
		for _, expr := range exprs {
			calls = append(calls, errorCall{family, expr})
		}
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].name() < calls[j].name() })
	// The calls run together, each an output of its own on a line of its
	// own, and a call both tools refuse at its own line is settled; the
	// rest run together again. A tool that stops at some errors before
	// evaluating (tether refuses an unknown function while loading) leaves
	// the others to the next round; a round that settles nothing leaves
	// each remaining call to run alone, as one configuration each.
	refused := map[errorCall]bool{}
	for round, pending := 1, calls; len(pending) > 0; round++ {
		var next []errorCall
		tfAt, ttAt := errorLines(t, tools, pending)
		for i, c := range pending {
			if line := callLine(i); tfAt[line] && ttAt[line] {
				refused[c] = true
			} else {
				next = append(next, c)
			}
		}
		t.Logf("round %d: both refused %d of %d calls at their lines", round, len(pending)-len(next), len(pending))
		if len(next) == len(pending) {
			break
		}
		pending = next
	}
	for _, c := range calls {
		t.Run(c.name(), func(t *testing.T) {
			if refused[c] {
				return // both refused it at its line, among the others
			}
			t.Parallel()
			tfRes, ttRes := planBoth(errorSides(t, tools, []errorCall{c}))
			if tfRes.Code != 1 || ttRes.Code != 1 {
				t.Fatalf("both must fail with exit 1:\n%s\n%s", tfRes, ttRes)
			}
			tfAt, ttAt := tfErrorAt.FindStringSubmatch(tfRes.Stderr), ttErrorAt.FindStringSubmatch(ttRes.Stderr+ttRes.Stdout)
			if tfAt == nil || ttAt == nil || tfAt[1] != ttAt[1] {
				t.Errorf("the error is not placed at the same line:\n%s\n%s", tfRes, ttRes)
			}
		})
	}
}

// errorCall is one call of functionErrors.
type errorCall struct{ family, expr string }

func (c errorCall) name() string { return c.family + "/" + c.expr }

// callLine is the line of main.tf that holds the i-th call of
// errorSides's configuration.
func callLine(i int) int { return 4*i + 2 }

// errorSides makes a terraform and a tether copy of the filesystem family
// (so that the file functions fail for the reason meant) with a main.tf
// of one output per call, the i-th at callLine(i).
func errorSides(t *testing.T, tools e2e.DiffTools, calls []errorCall) (e2e.Side, e2e.Side) {
	t.Helper()
	var main strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&main, "output \"x%d\" {\n  value = %s\n}\n\n", i, c.expr)
	}
	src := filepath.Join("testdata", "functions", "filesystem")
	files := map[string]string{
		"main.tf":         main.String(),
		"recursive.tftpl": `${templatefile("greeting.tftpl", { name = "x", subnets = [] })}`,
	}
	tf, tt := sides(t, tools, src, files)
	for _, s := range []e2e.Side{tf, tt} {
		os.RemoveAll(filepath.Join(s.Dir, "modules"))
	}
	return tf, tt
}

// planBoth runs terraform plan and tether plan, each on its side.
func planBoth(tf, tt e2e.Side) (e2e.CmdResult, e2e.CmdResult) {
	return e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run(e2e.TFPlan...)
		}
		return s.Run(e2e.TTPlan...)
	})
}

// errorLines plans the calls together with both tools and returns the
// lines of main.tf at which each placed an error; none when it did not
// fail with exit 1.
func errorLines(t *testing.T, tools e2e.DiffTools, calls []errorCall) (tfAt, ttAt map[int]bool) {
	t.Helper()
	tfRes, ttRes := planBoth(errorSides(t, tools, calls))
	lines := func(r e2e.CmdResult, re *regexp.Regexp, out string) map[int]bool {
		at := map[int]bool{}
		if r.Code != 1 || r.Err != nil {
			return at
		}
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			at[n] = true
		}
		return at
	}
	return lines(tfRes, tfErrorAt, tfRes.Stderr), lines(ttRes, ttErrorAt, ttRes.Stderr+ttRes.Stdout)
}

// TestImpureFunctionsDifferential applies the functions whose results
// differ at each call on both sides and checks each side's results by
// what they must satisfy, and that a second plan sees them unknown again
// rather than settled.
func TestImpureFunctionsDifferential(t *testing.T) {
	skipWithoutTerraform(t)
	t.Parallel()
	tools := e2e.BuildDiffTools(t)
	tf, tt := sides(t, tools, "", map[string]string{"main.tf": `
output "uuid" {
  value = uuid()
}

output "bcrypt" {
  value = bcrypt("s3cret", 5)
}

output "timestamp" {
  value = timestamp()
}

output "plantimestamp" {
  value = plantimestamp()
}
`})
	start := time.Now().UTC().Truncate(time.Second)
	tfRes, ttRes := getAndApplyBoth(tf, tt)
	e2e.MustSucceed(t, "apply", tfRes, ttRes)
	end := time.Now().UTC()
	// Terraform's uuid() is 128 random bits in UUID form, without the
	// version 4 bits that tether's (and RFC 4122's) set.
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, s := range []e2e.Side{tf, tt} {
		outs, r, err := readOutputs(s)
		if err != nil {
			t.Fatalf("%v\n%s", err, r)
		}
		str := func(name string) string {
			var v string
			if err := json.Unmarshal(outs[name].Value, &v); err != nil {
				t.Fatalf("%s: output %s is %s, not a string", s.Name, name, outs[name].Value)
			}
			return v
		}
		if u := str("uuid"); !uuidRE.MatchString(u) {
			t.Errorf("%s: uuid() = %q, not a random UUID", s.Name, u)
		}
		hash := str("bcrypt")
		if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte("s3cret")); err != nil {
			t.Errorf("%s: bcrypt() = %q does not verify: %v", s.Name, hash, err)
		}
		if cost, _ := bcrypt.Cost([]byte(hash)); cost != 5 || !strings.HasPrefix(hash, "$2a$05$") {
			t.Errorf("%s: bcrypt(_, 5) = %q, want a $2a$ hash of cost 5", s.Name, hash)
		}
		var times [2]time.Time
		for i, name := range []string{"plantimestamp", "timestamp"} {
			ts, err := time.Parse(time.RFC3339, str(name))
			if err != nil || !strings.HasSuffix(str(name), "Z") || ts.Before(start) || ts.After(end) {
				t.Errorf("%s: %s() = %q, not an RFC 3339 UTC time of the run (%v)", s.Name, name, str(name), err)
			}
			times[i] = ts
		}
		if times[1].Before(times[0]) {
			t.Errorf("%s: timestamp() %s is before plantimestamp() %s", s.Name, times[1], times[0])
		}
	}
	tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run(e2e.TFPlan...)
		}
		return s.Run(e2e.TTPlan...)
	})
	for _, r := range []e2e.CmdResult{tfRes, ttRes} {
		if r.Code != 2 || !strings.Contains(r.Stdout, "uuid") || !strings.Contains(r.Stdout, "(known after apply)") {
			t.Errorf("a second plan must show the impure outputs as changes known after apply (exit 2):\n%s", r)
		}
	}
}
