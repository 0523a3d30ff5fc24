package tether

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/providercheck"
)

func testBlock(command []string, env map[string]string, timeout string) cty.Value {
	var argv []cty.Value
	for _, a := range command {
		argv = append(argv, cty.StringVal(a))
	}
	envV := cty.NullVal(cty.Map(cty.String))
	if env != nil {
		m := map[string]cty.Value{}
		for k, v := range env {
			m[k] = cty.StringVal(v)
		}
		envV = cty.MapVal(m)
	}
	to := cty.NullVal(cty.String)
	if timeout != "" {
		to = cty.StringVal(timeout)
	}
	return cty.ObjectVal(map[string]cty.Value{"command": cty.ListVal(argv), "env": envV, "timeout": to})
}

func TestTester(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	url := providercheck.String(t, router.State, "url")
	fn := r.Up("tether_function", nil, map[string]cty.Value{"command": r.echo()})
	route := r.Up("tether_route", nil, routeAttrs(providercheck.String(t, router.State, "id"), "GET", "/echo", providercheck.String(t, fn.State, "url")))

	tester := r.Up("tether_tester", nil, map[string]cty.Value{
		"env": cty.MapVal(map[string]cty.Value{"TETHER_ROUTER_MAIN_URL": cty.StringVal(url)}),
		"test": cty.MapVal(map[string]cty.Value{
			"b_wrong": testBlock([]string{r.exe, "runtime", "http-get", "-want-body", "Bye", "$TETHER_ROUTER_MAIN_URL/echo?message=Hello"}, nil, ""),
			"a_echo":  testBlock([]string{r.exe, "runtime", "http-get", "-want-body", "Hello", "$TETHER_ROUTER_MAIN_URL/echo?message=Hello"}, nil, "10s"),
			"c_own_env": testBlock([]string{r.exe, "runtime", "http-get", "-want-status", "404", "$TETHER_ROUTER_MAIN_URL/$WHERE"},
				map[string]string{"WHERE": "nowhere"}, ""),
		}),
	})
	if id := providercheck.String(t, tester.State, "id"); id == "" {
		t.Fatal("no id")
	}
	// State as `tether test` reads it back: sensitive marks and all.
	tests, err := TesterTests(tester.State.Mark(marks.Sensitive))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tc := range tests {
		names = append(names, tc.Name)
	}
	if strings.Join(names, " ") != "a_echo b_wrong c_own_env" {
		t.Fatalf("tests in order %v", names)
	}
	if tests[0].Timeout != 10*time.Second || tests[1].Timeout != DefaultTestTimeout {
		t.Errorf("timeouts %s and %s", tests[0].Timeout, tests[1].Timeout)
	}
	if tests[2].Env["WHERE"] != "nowhere" || tests[2].Env["TETHER_ROUTER_MAIN_URL"] != url {
		t.Errorf("env of a test: %v", tests[2].Env)
	}

	ctx := context.Background()
	if res := RunTest(ctx, tests[0]); !res.Passed {
		t.Errorf("a_echo failed: %v\n%s", res.Err, res.Output)
	}
	res := RunTest(ctx, tests[1])
	if res.Passed || !strings.Contains(string(res.Output), `got status 200 and body "Hello"; want body "Bye"`) {
		t.Errorf("b_wrong: passed %v, output:\n%s", res.Passed, res.Output)
	}
	if res := RunTest(ctx, tests[2]); !res.Passed {
		t.Errorf("c_own_env failed: %v\n%s", res.Err, res.Output)
	}

	for _, o := range []*providercheck.Object{tester, route} {
		r.Down(o)
	}
	fnPID, routerPID := pidOf(t, fn), pidOf(t, router)
	r.Down(fn)
	r.Down(router)
	r.gone(fnPID, providercheck.String(t, fn.State, "url"), r.root)
	r.gone(routerPID, url, r.root)
}

func TestRunTestTimeout(t *testing.T) {
	if !runtimeSupported {
		t.Skip("needs Unix")
	}
	sleep, err := lookSleep()
	if err != nil {
		t.Skip(err)
	}
	// The test starts a process of its own that outlives it unless its
	// whole group is killed.
	start := time.Now()
	res := RunTest(context.Background(), TestCase{
		Name:    "slow",
		Command: []string{"/bin/sh", "-c", sleep + " 302 & " + sleep + " 303"},
		Timeout: 300 * time.Millisecond,
	})
	if res.Passed || res.Err == nil || !strings.Contains(res.Err.Error(), "timed out after 300ms") {
		t.Fatalf("a test past its timeout: %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %s to act", d)
	}
	waitFor(context.Background(), 2*time.Second, func() bool {
		return len(processesWithArgs(sleep, "302"))+len(processesWithArgs(sleep, "303")) == 0
	})
	if left := append(processesWithArgs(sleep, "302"), processesWithArgs(sleep, "303")...); len(left) > 0 {
		t.Errorf("processes of a timed-out test survive: %v", left)
	}

	res = RunTest(context.Background(), TestCase{Name: "missing", Command: []string{"tether-no-such-test-command"}, Timeout: time.Second})
	if res.Passed || !strings.Contains(res.Err.Error(), `"tether-no-such-test-command" is not on PATH`) {
		t.Errorf("a missing test command: %+v", res)
	}
}

func TestTesterValidation(t *testing.T) {
	r := newRT(t)
	for _, tc := range []struct {
		test   cty.Value
		detail string
	}{
		{testBlock([]string{"true"}, nil, "forever"), `In the test "t": the timeout is not valid`},
		{testBlock([]string{""}, nil, ""), `In the test "t": The executable, the command's first element, is empty.`},
		{testBlock([]string{"true"}, map[string]string{"": "x"}, ""), `In the test "t": "" is not an environment variable name`},
	} {
		cfg := r.Config("tether_tester", map[string]cty.Value{"test": cty.MapVal(map[string]cty.Value{"t": tc.test})})
		if d := r.Provider.ValidateResourceConfig("tether_tester", cfg); !strings.Contains(d.Error(), tc.detail) {
			t.Errorf("want %q, got %s", tc.detail, d.Error())
		}
	}
	pr := r.Plan("tether_tester", nil, map[string]cty.Value{"test": cty.MapVal(map[string]cty.Value{
		"t": testBlock([]string{"tether-no-such-test-command"}, nil, ""),
	})})
	if !strings.Contains(pr.Diagnostics.Error(), `"tether-no-such-test-command" is not on PATH`) {
		t.Errorf("a missing test command at plan: %s", pr.Diagnostics.Error())
	}
}
