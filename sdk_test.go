package tether_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

// program runs the tether command for a program in a fresh folder, the way
// `go run . ARGS` would, and returns the exit code and what it printed.
type program struct {
	t   *testing.T
	dir string
}

func newProgram(t *testing.T) *program {
	dir := t.TempDir()
	t.Chdir(dir)
	// The state key lives in the user's configuration folder: keep it in
	// the test's own.
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	return &program{t: t, dir: dir}
}

func (p *program) run(build func(*tether.Stack) error, args ...string) (int, string, string) {
	p.t.Helper()
	var out, errb bytes.Buffer
	code := tether.RunWith(args, strings.NewReader(""), &out, &errb, build)
	return code, out.String(), errb.String()
}

// must runs a command that must succeed with the given exit code.
func (p *program) must(code int, build func(*tether.Stack) error, args ...string) string {
	p.t.Helper()
	got, out, errs := p.run(build, args...)
	if got != code {
		p.t.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, out, errs)
	}
	return out
}

func (p *program) read(name string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// outputs returns the stack's exports as recorded after up.
func (p *program) outputs(build func(*tether.Stack) error) map[string]any {
	p.t.Helper()
	out := p.must(0, build, "output", "--json")
	var raw map[string]struct{ Value any }
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		p.t.Fatalf("output --json: %v\n%s", err, out)
	}
	m := map[string]any{}
	for k, v := range raw {
		m[k] = v.Value
	}
	return m
}

// lineOf returns the line of this file holding marker, so that tests can
// check positions without counting lines.
func lineOf(t *testing.T, marker string) int {
	t.Helper()
	return lineIn(t, thisFile, marker)
}

// lineIn is lineOf for another file of this package.
func lineIn(t *testing.T, file, marker string) int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if strings.Contains(s.Text(), "// "+marker) {
			return n
		}
	}
	t.Fatalf("no line marked %q", marker)
	return 0
}

var thisFile, _ = filepath.Abs("sdk_test.go")

func TestTokensInSprintfAndConcatenation(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(12)})
		builtin.NewFile(s, "concat", builtin.FileArgs{Path: "concat.txt", Content: "<" + r.Result().String() + ">"})
		builtin.NewFile(s, "sprintf", builtin.FileArgs{
			Path:    "sprintf.txt",
			Content: fmt.Sprintf("%s|%v|%s", r.Result(), r.Length(), r.Result()),
		})
		// A token inside a nested value of any type.
		builtin.NewValue(s, "nested", builtin.ValueArgs{Input: map[string]any{"list": []string{"a-" + r.Result().String()}}})
		s.Export("result", r.Result())
		s.Export("sprintf", tether.Sprintf("[%s]", r.Result()))
		return nil
	}
	plan := p.must(2, build, "plan", "--detailed-exitcode")
	if !strings.Contains(plan, "content         = (known after apply)") {
		t.Errorf("a string holding a token of an unknown value should be unknown in the plan:\n%s", plan)
	}
	p.must(0, build, "up", "--yes")
	out := p.outputs(build)
	result := out["result"].(string)
	if len(result) != 12 {
		t.Fatalf("result = %q", result)
	}
	if got, want := p.read("concat.txt"), "<"+result+">"; got != want {
		t.Errorf("concat.txt = %q, want %q", got, want)
	}
	if got, want := p.read("sprintf.txt"), result+"|12|"+result; got != want {
		t.Errorf("sprintf.txt = %q, want %q", got, want)
	}
	if got, want := out["sprintf"], "["+result+"]"; got != want {
		t.Errorf("tether.Sprintf export = %q, want %q", got, want)
	}
	// Every use recorded a dependency: nothing is left to change.
	p.must(0, build, "plan", "--detailed-exitcode")
}

func TestOutputChains(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		a := builtin.NewFile(s, "a", builtin.FileArgs{Path: "a.txt", Content: "alpha"})
		b := builtin.NewFile(s, "b", builtin.FileArgs{Path: "b.txt", Content: "beta"})
		// Apply over Apply: typed all the way, no assertions.
		size := tether.Apply(a.Sha256(), func(h string) int { return len(h) })
		double := tether.Apply(size, func(n int) []int { return []int{n, 2 * n} })
		s.Export("double", double)
		// All and Apply2 over values of several resources.
		paths := tether.All(a.Path(), b.Path())
		joined := tether.Apply(paths, func(p []string) string { return strings.Join(p, "+") })
		pair := tether.Apply2(joined, size, func(j string, n int) string { return fmt.Sprintf("%s#%d", j, n) })
		builtin.NewFile(s, "c", builtin.FileArgs{Path: "c.txt", Content: pair.String()})
		// A number into a number argument: Set takes any Output.
		builtin.NewRandom(s, "r", builtin.RandomArgs{}, tether.Set("length", tether.Apply(size, func(n int) int { return n / 8 })))
		s.Export("three", tether.Apply3(a.Path(), b.Path(), double, func(x, y string, d []int) string {
			return fmt.Sprint(x, y, d[1])
		}))
		return nil
	}
	plan := p.must(2, build, "plan", "--detailed-exitcode")
	// A path is known at plan time, so what is computed from it alone is
	// too: the engine called the function while planning.
	if !strings.Contains(plan, `+ content         = "a.txt+b.txt#`) && !strings.Contains(plan, "a.txt+b.txt") {
		t.Logf("plan:\n%s", plan)
	}
	p.must(0, build, "up", "--yes")
	out := p.outputs(build)
	if got := fmt.Sprint(out["double"]); got != "[64 128]" {
		t.Errorf("double = %s, want [64 128]", got)
	}
	if got := p.read("c.txt"); got != "a.txt+b.txt#64" {
		t.Errorf("c.txt = %q", got)
	}
	if got := out["three"]; got != "a.txtb.txt128" {
		t.Errorf("three = %v", got)
	}
	state := p.must(0, build, "state", "show", "tether_random.r")
	if !regexp.MustCompile(`length\s+= 8\b`).MatchString(state) {
		t.Errorf("tether_random.r should have length 8 from the lazy number:\n%s", state)
	}
	p.must(0, build, "plan", "--detailed-exitcode")
}

// TestDependsOnOrdersResources proves the order by when files were really
// written: a slow chain writes a.txt late; b.txt, which only DependsOn it,
// must be written after it, and c.txt, which does not, before.
func TestDependsOnOrdersResources(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		slow := builtin.NewValue(s, "slow", builtin.ValueArgs{Input: "a", DelayMs: tether.Int(400)})
		a := builtin.NewFile(s, "a", builtin.FileArgs{Path: "a.txt", Content: tether.Apply(slow.Output(), func(v any) string { return fmt.Sprint(v) }).String()})
		builtin.NewFile(s, "b", builtin.FileArgs{Path: "b.txt", Content: "b"}, tether.DependsOn(a))
		builtin.NewFile(s, "c", builtin.FileArgs{Path: "c.txt", Content: "c"})
		return nil
	}
	p.must(0, build, "up", "--yes")
	mtime := func(name string) time.Time {
		fi, err := os.Stat(filepath.Join(p.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	a, b, c := mtime("a.txt"), mtime("b.txt"), mtime("c.txt")
	if !c.Before(a) {
		t.Fatalf("c.txt (%v) should be written before the slow a.txt (%v): the test would prove nothing", c, a)
	}
	if b.Before(a) {
		t.Errorf("b.txt was written at %v, before a.txt at %v, which it depends on", b, a)
	}
}

// TestDependsOnOutputInvoke: a read that only waits through DependsOn sees
// the file its dependency writes in the same run, and the next plan reads
// it during plan and has nothing to do.
func TestDependsOnOutputInvoke(t *testing.T) {
	p := newProgram(t)
	content := "first\n"
	build := func(s *tether.Stack) error {
		src := builtin.NewFile(s, "src", builtin.FileArgs{Path: "src.txt", Content: content})
		read := builtin.GetFileOutput(s, "read", builtin.GetFileArgs{Path: "src.txt"}, tether.DependsOn(src))
		builtin.NewFile(s, "copy", builtin.FileArgs{Path: "copy.txt", Content: read.Content().String()})
		return nil
	}
	plan := p.must(2, build, "plan", "--detailed-exitcode")
	if !strings.Contains(plan, "data.tether_file.read will be read during apply") || !strings.Contains(plan, "tether_file.src, which has changes pending") {
		t.Errorf("the read should wait for tether_file.src:\n%s", plan)
	}
	p.must(0, build, "up", "--yes")
	if got := p.read("copy.txt"); got != content {
		t.Errorf("copy.txt = %q, want %q", got, content)
	}
	p.must(0, build, "plan", "--detailed-exitcode")
	content = "second\n"
	p.must(0, build, "up", "--yes")
	if got := p.read("copy.txt"); got != content {
		t.Errorf("after a change copy.txt = %q, want %q", got, content)
	}
	p.must(0, build, "plan", "--detailed-exitcode")
}

func TestDirectInvoke(t *testing.T) {
	p := newProgram(t)
	if err := os.WriteFile("given.txt", []byte("known now"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got *builtin.GetFileResult
	build := func(s *tether.Stack) error {
		var err error
		got, err = builtin.GetFile(s, builtin.GetFileArgs{Path: "given.txt"})
		if err != nil {
			return err
		}
		builtin.NewFile(s, "copy", builtin.FileArgs{Path: "copy.txt", Content: got.Content})
		return nil
	}
	p.must(0, build, "up", "--yes")
	if got.Content != "known now" || got.Path != "given.txt" || len(got.Sha256) != 64 {
		t.Errorf("GetFile returned %+v", got)
	}
	if c := p.read("copy.txt"); c != "known now" {
		t.Errorf("copy.txt = %q", c)
	}
}

func TestDirectInvokeRejectsDependsOn(t *testing.T) {
	p := newProgram(t)
	var err error
	build := func(s *tether.Stack) error {
		f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
		_, err = builtin.GetFile(s, builtin.GetFileArgs{Path: "f.txt"}, tether.DependsOn(f)) // direct-depends-on
		return err
	}
	code, _, stderr := p.run(build, "plan")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var e *tether.Error
	if !errors.As(err, &e) {
		t.Fatalf("GetFile returned %T %v, want a *tether.Error", err, err)
	}
	if e.File != "sdk_test.go" || e.Line != lineOf(t, "direct-depends-on") {
		t.Errorf("error at %s:%d, want sdk_test.go:%d", e.File, e.Line, lineOf(t, "direct-depends-on"))
	}
	for _, want := range []string{
		fmt.Sprintf("Error: sdk_test.go:%d:", lineOf(t, "direct-depends-on")),
		"DependsOn given to a direct-form read",
		"builtin.GetFile is the direct form",
		"builtin.GetFileOutput(scope, id, args, tether.DependsOn(...))",
	} {
		if !strings.Contains(oneLine(stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(".tether"); err == nil {
		t.Error("a failed program must not touch state")
	}
}

func TestDirectInvokeRejectsLazyArguments(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
		_, err := builtin.GetFile(s, builtin.GetFileArgs{Path: f.Path().String()})
		return err
	}
	_, _, stderr := p.run(build, "plan")
	for _, want := range []string{"builtin.GetFile was given lazy arguments", "path (tether_file.f.path) is not known yet", "builtin.GetFileOutput(scope, id, args)"} {
		if !strings.Contains(oneLine(stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func TestDuplicateIDsNameBothCallSites(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		builtin.NewFile(s, "same", builtin.FileArgs{Path: "a", Content: "a"}) // first-same
		c := tether.NewComponent(s, "comp")
		builtin.NewFile(c, "same", builtin.FileArgs{Path: "b", Content: "b"})   // fine: another scope
		builtin.NewRandom(s, "same", builtin.RandomArgs{Length: tether.Int(3)}) // second-same
		return nil
	}
	code, _, stderr := p.run(build, "plan")
	first, second := lineOf(t, "first-same"), lineOf(t, "second-same")
	want := fmt.Sprintf(`Error: sdk_test.go:%d:3: Duplicate id`, second)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
	if !strings.Contains(oneLine(stderr), fmt.Sprintf("builtin.NewRandom at sdk_test.go:%d uses the id \"same\", which builtin.NewFile at sdk_test.go:%d already uses in the stack", second, first)) {
		t.Errorf("the error should name both call sites:\n%s", stderr)
	}
	if strings.Count(stderr, "Error:") != 1 {
		t.Errorf("only the second use is a mistake:\n%s", stderr)
	}
}

// newPage is a helper constructor: a duplicate id made through it is the
// mistake of its callers.
func newPage(s tether.Scope, id string) *builtin.File {
	return builtin.NewFile(s, id, builtin.FileArgs{Path: id, Content: id}) // helper-line
}

func TestDuplicateIDThroughAHelper(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		newPage(s, "index") // helper-first
		newPage(s, "index") // helper-second
		return nil
	}
	code, _, stderr := p.run(build, "plan")
	first, second, helper := lineOf(t, "helper-first"), lineOf(t, "helper-second"), lineOf(t, "helper-line")
	want := fmt.Sprintf(`Error: sdk_test.go:%d:3: Duplicate id`, second)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
	detail := fmt.Sprintf("builtin.NewFile at sdk_test.go:%d (called from sdk_test.go:%d) uses the id \"index\", which builtin.NewFile at sdk_test.go:%d (called from sdk_test.go:%d) already uses", helper, second, helper, first)
	if !strings.Contains(oneLine(stderr), detail) {
		t.Errorf("the error should name both callers:\n%s", stderr)
	}
}

func TestComponentAddresses(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		outer := tether.NewComponent(s, "outer")
		inner := tether.NewComponent(outer, "inner")
		f := builtin.NewFile(inner, "f", builtin.FileArgs{Path: "f.txt", Content: "f"})
		builtin.GetFileOutput(outer, "r", builtin.GetFileArgs{Path: "f.txt"}, tether.DependsOn(inner))
		s.Export("inner_path", f.Path())
		return nil
	}
	p.must(0, build, "up", "--yes")
	list := p.must(0, build, "state", "list")
	if !strings.Contains(list, "module.outer.module.inner.tether_file.f") {
		t.Errorf("state list:\n%s", list)
	}
}

func TestMistakesAtTheUsersLine(t *testing.T) {
	cases := []struct {
		name   string
		marker string
		want   string
		build  func(*tether.Stack) error
	}{
		{"nil required field", "nil-required", "test.NewValue needs Input (the argument input), but it is nil", func(s *tether.Stack) error {
			newValue(s, "v", valueArgs{}) // nil-required
			return nil
		}},
		{"panic", "panics", "The program panicked", func(s *tether.Stack) error {
			var m map[string]int
			m["x"] = 1 // panics
			return nil
		}},
		{"returned error", "returns-error", "the disk is full", func(s *tether.Stack) error { // returns-error
			return errors.New("the disk is full")
		}},
		{"resource after Main returned", "late", "builtin.NewFile was called after the function given to tether.Main returned", func(s *tether.Stack) error {
			f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
			s.Export("x", tether.Apply(f.Path(), func(p string) string {
				builtin.NewFile(s, "late", builtin.FileArgs{Path: "late.txt", Content: p}) // late
				return p
			}))
			return nil
		}},
		{"lazy value in an id", "lazy-id", "Lazy id", func(s *tether.Stack) error {
			f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
			builtin.NewFile(s, f.Path().String(), builtin.FileArgs{Path: "g.txt", Content: "x"}) // lazy-id
			return nil
		}},
		{"Output formatted with %d", "bad-verb", "Output formatted with an unsupported verb", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: fmt.Sprintf("%5.1f", r.Length())}) // bad-verb
			return nil
		}},
		{"Apply returning a lazy value", "apply-lazy", "Lazy value returned by a function", func(s *tether.Stack) error {
			f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
			g := builtin.NewFile(s, "g", builtin.FileArgs{Path: "g.txt", Content: "y"})
			s.Export("both", tether.Apply(f.Path(), func(p string) string { return p + g.Path().String() })) // apply-lazy
			return nil
		}},
		{"token upper-cased", "token-upper", "Token changed by a string operation", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: strings.ToUpper(r.Result().String())}) // token-upper
			return nil
		}},
		{"token sliced", "token-slice", "the token of tether_random.r.result, made at sdk_test.go:", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: r.Result().String()[2:]}) // token-slice
			return nil
		}},
		{"token cut short", "token-short", `holds a piece of a token ("${tet")`, func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			s.Export("x", "id-"+r.Result().String()[:5]) // token-short
			return nil
		}},
		{"token replaced", "token-replace", "tether.Apply(out, strings.ToUpper)", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			env := map[string]string{"X": strings.Replace(r.Result().String(), ":", "-", 1)}
			builtin.NewFunction(s, "fn", builtin.FunctionArgs{Command: []string{"true"}, Env: env}) // token-replace
			return nil
		}},
		{"token in base64", "token-base64", "the token of tether_random.r.result, made at sdk_test.go:", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+r.Result().String()))}) // token-base64
			return nil
		}},
		{"token in URL-safe base64", "token-base64url", "the token of tether_random.r.result, made at sdk_test.go:", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			s.Export("x", base64.RawURLEncoding.EncodeToString([]byte("a"+r.Result().String()))) // token-base64url
			return nil
		}},
		{"token in hex", "token-hex", "an encoding (hex, base64)", func(s *tether.Stack) error {
			r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: fmt.Sprintf("%X", r.Result().String())}) // token-hex
			return nil
		}},
		{"platform chosen twice", "platform-twice", "The stack's platform was already chosen at sdk_test.go:", func(s *tether.Stack) error {
			s.Platform(tether.Local{})
			s.Platform(tether.AWS{Region: "eu-west-1"}) // platform-twice
			return nil
		}},
		{"backend chosen twice", "backend-twice", "The stack's backend was already chosen at sdk_test.go:", func(s *tether.Stack) error {
			s.Backend(tether.LocalBackend{})
			s.Backend(tether.PG{}) // backend-twice
			return nil
		}},
		{"nil backend", "backend-nil", "Backend was given nil", func(s *tether.Stack) error {
			s.Backend(nil) // backend-nil
			return nil
		}},
		{"backend init has not set up", "backend-uninit", `Backend initialization required: the configuration chooses the "pg" backend, which tether init has not set up`, func(s *tether.Stack) error {
			s.Backend(tether.PG{ConnStr: "postgres://127.0.0.1:1/none"}) // backend-uninit
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
			return nil
		}},
		{"aws without a region", "no-region", "Invalid aws platform settings", func(s *tether.Stack) error {
			s.Platform(tether.AWS{Prefix: "shop"}) // no-region
			return nil
		}},
		{"unknown Set argument", "bad-set", `tether.Set names "size", but builtin.NewFile has no argument`, func(s *tether.Stack) error {
			builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"}, tether.Set("size", 3)) // bad-set
			return nil
		}},
		{"option given as a value", "set-as-value", `builtin.NewValue was given tether.Set("input", ...) as the value of input. tether.Set is an option`, func(s *tether.Stack) error {
			builtin.NewValue(s, "v", builtin.ValueArgs{Input: tether.Set("input", "v")}) // set-as-value
			return nil
		}},
		{"struct of unexported fields", "unexported", "builtin.NewValue was given a time.Time at input, whose fields are all unexported", func(s *tether.Stack) error {
			builtin.NewValue(s, "v", builtin.ValueArgs{Input: time.Unix(0, 0)}) // unexported
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProgram(t)
			code, _, stderr := p.run(c.build, "plan")
			want := fmt.Sprintf("Error: sdk_test.go:%d:", lineOf(t, c.marker))
			if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(oneLine(stderr), c.want) {
				t.Errorf("exit %d; want 1 and %q with %q:\n%s", code, want, c.want, stderr)
			}
			evaluated := c.name == "resource after Main returned" || c.name == "Apply returning a lazy value"
			if _, err := os.Stat(".tether/state.db"); err == nil && !evaluated {
				t.Error("a failed program must not touch state")
			}
		})
	}
}

// valueArgs and newValue are bindings of tether_value as tether gen would
// write them if its input were required.
type valueArgs struct {
	Input any `tether:"input,required"`
}

func newValue(scope tether.Scope, id string, args valueArgs) *tether.Resource {
	r := &tether.Resource{}
	tether.Declare(scope, r, &tether.Type{Provider: "tether", Name: "tether_value", Func: "test.NewValue"}, id, args)
	return r
}

// kept holds an Output across two runs of a program.
var kept tether.Output[string]

func TestValueFromAnotherStack(t *testing.T) {
	p := newProgram(t)
	p.must(0, func(s *tether.Stack) error {
		kept = builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"}).Path()
		return nil
	}, "plan")
	code, _, stderr := p.run(func(s *tether.Stack) error {
		builtin.NewFile(s, "g", builtin.FileArgs{Path: "g.txt", Content: kept.String()}) // other-stack
		return nil
	}, "plan")
	want := fmt.Sprintf("Error: sdk_test.go:%d:3: Value from another stack", lineOf(t, "other-stack"))
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
}

func TestSensitiveExport(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(4)})
		s.Export("secret", r.Result(), tether.Sensitive())
		return nil
	}
	out := p.must(0, build, "up", "--yes")
	if !strings.Contains(out, "secret = (sensitive value)") {
		t.Errorf("up output:\n%s", out)
	}
}

// TestNestedBlocks: blocks are slices and maps of structs, and tokens work
// inside them.
func TestNestedBlocks(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(5)})
		b := builtin.NewBundle(s, "b", builtin.BundleArgs{Dir: "bundle", File: []builtin.BundleFile{
			{Path: "one.txt", Content: "one " + r.Result().String() + "\n", Header: map[string]builtin.BundleFileHeader{"Owner": {Value: "me"}}},
			{Path: "two.txt", Content: "two\n"},
		}})
		s.Export("count", b.FileCount())
		s.Export("files", tether.Apply(b.File(), func(fs []builtin.BundleFile) string {
			return fs[0].Path + "," + fs[1].Path
		}))
		s.Export("result", r.Result())
		return nil
	}
	p.must(0, build, "up", "--yes")
	out := p.outputs(build)
	if out["count"] != 2.0 || out["files"] != "one.txt,two.txt" {
		t.Errorf("outputs = %v", out)
	}
	one := p.read("bundle/one.txt")
	if !strings.Contains(one, "Owner: me") || !strings.HasSuffix(one, "one "+out["result"].(string)+"\n") {
		t.Errorf("bundle/one.txt = %q", one)
	}
	p.must(0, build, "plan", "--detailed-exitcode")
}

// TestValGathers: Val turns a Go value holding Outputs into one Output,
// which waits for all of them.
func TestValGathers(t *testing.T) {
	p := newProgram(t)
	type pair struct {
		Left  tether.Output[string] `tether:"left"`
		Right string                `tether:"right"`
	}
	build := func(s *tether.Stack) error {
		r := builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(4)})
		both := tether.Val(pair{Left: r.Result(), Right: "fixed"})
		s.Export("pair", both)
		return nil
	}
	code, _, stderr := p.run(build, "up", "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := p.outputs(build)
	m, ok := out["pair"].(map[string]any)
	if !ok || m["right"] != "fixed" || len(m["left"].(string)) != 4 {
		t.Errorf("pair = %v", out["pair"])
	}
}

func TestDirectInvokeRejectsLazySet(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		f := builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: "x"})
		_, err := builtin.GetFile(s, builtin.GetFileArgs{}, tether.Set("path", f.Path()))
		return err
	}
	_, _, stderr := p.run(build, "plan")
	if !strings.Contains(oneLine(stderr), "when path (tether_file.f.path) is not known yet") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// A program run by the go command (go run, or this test) cannot make its
// exit code 2 reach a script: plan --detailed-exitcode says so, and how to
// get it, when its output goes to a script rather than a terminal.
func TestDetailedExitCodeUnderGoRun(t *testing.T) {
	exe, _ := os.Executable()
	if !strings.Contains(exe, "go-build") {
		t.Skipf("the test binary %s is not in the go command's build folder", exe)
	}
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		builtin.NewRandom(s, "r", builtin.RandomArgs{Length: tether.Int(3)})
		return nil
	}
	code, _, stderr := p.run(build, "plan", "--detailed-exitcode")
	if code != 2 || !strings.Contains(oneLine(stderr), `"go run" turns every non-zero exit code into 1`) ||
		!strings.Contains(stderr, "go build -o app . && ./app plan --detailed-exitcode") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := p.run(build, "plan"); code != 0 || strings.Contains(stderr, "go run") {
		t.Errorf("plain plan: exit %d, stderr:\n%s", code, stderr)
	}
}
