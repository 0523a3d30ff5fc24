package providercheck

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// RuntimeScenarios are the expectations of the built-in provider's local
// runtime, whatever carries the calls: a function served behind a router,
// restarted in place on a change, and stopped by destroy. echo is a
// command line that serves the runtime's echo function (an executable
// that runs tether.RuntimeMain, then "runtime", "echo"), and the
// provider's own executable must run RuntimeMain too, since it starts the
// router with itself. The provider must be configured with a runtime
// folder of the test's own.
func RuntimeScenarios(echo ...string) []Scenario {
	return []Scenario{{"function behind a router", func(t *testing.T, h *Harness) { functionBehindRouter(t, h, echo) }}}
}

func functionBehindRouter(t *testing.T, h *Harness, echo []string) {
	command := make([]cty.Value, len(echo))
	for i, a := range echo {
		command[i] = cty.StringVal(a)
	}
	fnAttrs := func(greeting string) map[string]cty.Value {
		return map[string]cty.Value{
			"command": cty.ListVal(command),
			"env":     cty.MapVal(map[string]cty.Value{"GREETING": cty.StringVal(greeting)}),
		}
	}

	router := h.Up("tether_router", nil, nil)
	defer h.CleanUp(router)
	routerURL := String(t, router.State, "url")
	fn := h.Up("tether_function", nil, fnAttrs("hi"))
	defer h.CleanUp(fn)
	fnURL := String(t, fn.State, "url")
	if code, body := httpGet(t, fnURL+"/?message=direct"); code != 200 || body != "direct" {
		t.Fatalf("the function answered %d %q", code, body)
	}
	route := h.Up("tether_route", nil, map[string]cty.Value{
		"router_id": cty.StringVal(String(t, router.State, "id")),
		"method":    cty.StringVal("GET"),
		"path":      cty.StringVal("/echo"),
		"target":    cty.StringVal(fnURL),
	})
	defer h.CleanUp(route)
	if code, body := httpGet(t, routerURL+"/echo?message=routed"); code != 200 || body != "routed" {
		t.Fatalf("GET /echo through the router answered %d %q", code, body)
	}

	// Nothing changed: nothing restarts.
	pr := h.Plan("tether_function", fn, fnAttrs("hi"))
	NoErrors(t, "plan", pr.Diagnostics)
	if !pr.PlannedState.RawEquals(fn.State) {
		t.Fatalf("an unchanged function plans a change: %#v", pr.PlannedState)
	}

	// A changed environment restarts the process in place, on the same
	// url, so that the route keeps working.
	pr = h.Plan("tether_function", fn, fnAttrs("hello"))
	NoErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 {
		t.Errorf("a new environment replaces the function: %#v", pr.RequiresReplace)
	}
	restarted := h.Up("tether_function", fn, fnAttrs("hello"))
	if got := String(t, restarted.State, "url"); got != fnURL {
		t.Errorf("the url changed on restart: %s, then %s", fnURL, got)
	}
	if restarted.State.GetAttr("pid").RawEquals(fn.State.GetAttr("pid")) {
		t.Errorf("the process was not restarted: pid %#v", fn.State.GetAttr("pid"))
	}
	fn = restarted
	if code, body := httpGet(t, routerURL+"/echo?message=again"); code != 200 || body != "again" {
		t.Fatalf("GET /echo after the restart answered %d %q", code, body)
	}

	// Destroy stops them: nothing listens any more.
	h.Down(route)
	h.Down(fn)
	h.Down(router)
	for _, u := range []string{fnURL, routerURL} {
		if Listening(u) {
			t.Errorf("%s still accepts connections after destroy", u)
		}
	}
}

// httpGet gets u, a loopback url, and returns the status and body.
func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Listening reports whether something accepts connections at the host
// and port of u.
func Listening(u string) bool {
	host := strings.TrimPrefix(u, "http://")
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
