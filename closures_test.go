package tether_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
	"github.com/tetherhq/tether/internal/deduce"
)

// readsNothing makes the deducer answer that no closure reads anything.
func readsNothing(t *testing.T) {
	t.Cleanup(tether.DeduceWith(func(req deduce.Request) (*deduce.Result, error) {
		return &deduce.Result{Funcs: make([]deduce.FuncResult, len(req.Funcs))}, nil
	}))
}

func handler(w http.ResponseWriter, r *http.Request) {}

func TestClosureDeclarationMistakes(t *testing.T) {
	p := newProgram(t)
	readsNothing(t)
	build := func(s *tether.Stack) error {
		router := builtin.NewRouter(s, "main", builtin.RouterArgs{})
		tester := builtin.NewTester(s, "e2e", builtin.TesterArgs{})
		router.Get("/a", handler, tether.Uses(router.ID()))             // uses-id: any attribute can be read
		router.Get("/b", nil)                                           // nil-handler
		router.Get("/a", handler)                                       // duplicate-route
		tester.Test("t", func(t *tether.T) {})                          // first-test
		tester.Test("t", func(t *tether.T) {})                          // duplicate-test
		tester.Test("slow", func(*tether.T) {}, tether.TestTimeout(-1)) // bad-timeout
		return nil
	}
	code, _, stderr := p.run(build, "plan")
	if code != 1 {
		t.Fatalf("plan exited %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"Error: closures_test.go:" + strconv.Itoa(closureLine(t, "nil-handler")) + ":3: Nil handler",
		"builtin.Router.Get was given a nil handler for GET /b.",
		"Error: closures_test.go:" + strconv.Itoa(closureLine(t, "duplicate-route")) + ":3: Duplicate id",
		"uses the id \"main_get_a\"",
		"Error: closures_test.go:" + strconv.Itoa(closureLine(t, "duplicate-test")) + ":3: Duplicate test",
		"adds the test \"t\" to",
		"Invalid test timeout",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// The mistakes stop the deploy before the deducer runs, so the
	// misuse of Uses is reported once the rest is right.
	build2 := func(s *tether.Stack) error {
		router := builtin.NewRouter(s, "main", builtin.RouterArgs{})
		router.Get("/a", handler, tether.Uses(router.ID(), "x"))
		return nil
	}
	code, _, stderr = p.run(build2, "plan")
	if code != 1 || !strings.Contains(stderr, "Not a captured property") ||
		strings.Contains(stderr, "the id of tether_router.main") ||
		!strings.Contains(stderr, "it was given a string.") {
		t.Errorf("plan exited %d\n%s", code, stderr)
	}
}

// A program without closures is planned as before: no program copy, no
// architecture file.
func TestNoClosuresNoProgram(t *testing.T) {
	p := newProgram(t)
	readsNothing(t)
	build := func(s *tether.Stack) error {
		builtin.NewRouter(s, "main", builtin.RouterArgs{})
		return nil
	}
	out := p.must(0, build, "plan")
	if strings.Contains(out, "tether_program") {
		t.Errorf("plan declares the program:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".tether", "arch.json")); err == nil {
		t.Error("arch.json written")
	}
}

// The deducer's answer decides the environment: names by the rule, the
// closure's id, the function after the router, the tests' commands.
func TestClosureConfiguration(t *testing.T) {
	p := newProgram(t)
	t.Cleanup(tether.DeduceWith(func(req deduce.Request) (*deduce.Result, error) {
		res := &deduce.Result{Funcs: make([]deduce.FuncResult, len(req.Funcs))}
		// The test reads the url of the router declared on the line
		// marked router-decl.
		at := deduce.Position{File: thisClosuresFile, Line: closureLine(t, "router-decl")}
		res.Funcs[1] = deduce.FuncResult{Analyzed: true, Reads: []deduce.Read{{
			Property: "url", At: at, Origins: []deduce.Origin{{At: at, Callee: "NewRouter"}},
		}}}
		return res, nil
	}))
	build := func(s *tether.Stack) error {
		site := tether.NewComponent(s, "site")
		router := builtin.NewRouter(site, "main", builtin.RouterArgs{}) // router-decl
		router.Get("/echo", handler)
		tester := builtin.NewTester(s, "e2e", builtin.TesterArgs{})
		tester.Test("echo", func(t *tether.T) { _ = router.URL() })
		return nil
	}
	out := p.must(0, build, "plan")
	for _, want := range []string{
		"# module.site.tether_function.main_get_echo will be created",
		`"TETHER_CLOSURE" = "module.site.tether_function.main_get_echo"`,
		"# module.site.tether_route.main_get_echo_route will be created",
		"# tether_program.self will be created",
		`"TETHER_CLOSURE"              = "tether_tester.e2e/echo"`,
		`"TETHER_ROUTER_SITE_MAIN_URL" = (known after apply)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	arch := p.read(filepath.Join(".tether", "arch.json"))
	for _, want := range []string{`"kind": "captured property"`, `"env": "TETHER_ROUTER_SITE_MAIN_URL"`, `"operation": "GET /echo"`} {
		if !strings.Contains(arch, want) {
			t.Errorf("arch.json lacks %q:\n%s", want, arch)
		}
	}
}

var thisClosuresFile, _ = filepath.Abs("closures_test.go")

// closureLine is the line of this file marked with marker.
func closureLine(t *testing.T, marker string) int {
	t.Helper()
	b, err := os.ReadFile(thisClosuresFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// "+marker) {
			return i + 1
		}
	}
	t.Fatalf("no line marked %q", marker)
	return 0
}
