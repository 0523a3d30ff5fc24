package tether

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

func routeAttrs(routerID, method, path, target string) map[string]cty.Value {
	return map[string]cty.Value{
		"router_id": cty.StringVal(routerID),
		"method":    cty.StringVal(method),
		"path":      cty.StringVal(path),
		"target":    cty.StringVal(target),
	}
}

func TestRouter(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	routerID, url := providercheck.String(t, router.State, "id"), providercheck.String(t, router.State, "url")
	fn := r.Up("tether_function", nil, map[string]cty.Value{"command": r.echo()})
	fnURL := providercheck.String(t, fn.State, "url")

	echo := r.Up("tether_route", nil, routeAttrs(routerID, "GET", "/echo", fnURL))
	panicky := r.Up("tether_route", nil, routeAttrs(routerID, "ANY", "/panic", fnURL))

	if code, body := get(t, "GET", url+"/echo?message=Hello%20Tether!"); code != 200 || body != "Hello Tether!" {
		t.Fatalf("GET /echo: %d %q", code, body)
	}
	if code, _ := get(t, "GET", url+"/nowhere"); code != 404 {
		t.Errorf("an unknown path answered %d, want 404", code)
	}
	if code, _ := get(t, "POST", url+"/echo"); code != 405 {
		t.Errorf("a known path with another method answered %d, want 405", code)
	}

	// A handler that panics: the router says 502, the function's log
	// keeps the stack, and the function goes on serving.
	code, body := get(t, "GET", url+"/panic")
	if code != http.StatusBadGateway || !strings.Contains(body, "did not answer") {
		t.Errorf("a panicking handler answered %d %q, want 502", code, body)
	}
	log, _ := os.ReadFile(providercheck.String(t, fn.State, "log_file"))
	if !strings.Contains(string(log), "panic requested") || !strings.Contains(string(log), "goroutine") {
		t.Errorf("the function's log lacks the panic and its stack:\n%s", log)
	}
	if code, _ := get(t, "GET", url+"/echo"); code != 200 {
		t.Errorf("the function stopped serving after a panic: %d", code)
	}

	// Another route for the same method and path is refused, naming the
	// route that has it.
	_, diags := r.Try("tether_route", nil, routeAttrs(routerID, "GET", "/echo", fnURL))
	if !strings.Contains(diags.Error(), "GET /echo is already routed") {
		t.Errorf("a second route for GET /echo: %s", diags.Error())
	}
	// So is a pattern the router cannot tell from an existing one.
	a := r.Up("tether_route", nil, routeAttrs(routerID, "GET", "/items/{id}/raw", fnURL))
	_, diags = r.Try("tether_route", nil, routeAttrs(routerID, "GET", "/items/latest/{what}", fnURL))
	if !strings.Contains(diags.Error(), "conflicts with") {
		t.Errorf("conflicting patterns: %s", diags.Error())
	}
	r.Down(a)

	// The admin endpoint wants the token.
	var ri readyInfo
	if err := readJSON(filepath.Join(r.root, routerID, readyFileName), &ri); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("PUT", ri.Admin+"/v1/routes", bytes.NewReader([]byte(`{"method":"GET","path":"/x","target":"http://127.0.0.1:1"}`)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the admin endpoint without token answered %d", resp.StatusCode)
	}
	info, _ := os.Stat(filepath.Join(r.root, routerID, tokenFileName))
	if info == nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the token file is not 0600: %v", info)
	}

	// A function that is down: 502.
	fnPID := pidOf(t, fn)
	r.Down(fn)
	r.gone(fnPID, fnURL, filepath.Join(r.root, providercheck.String(t, fn.State, "id")))
	if code, _ := get(t, "GET", url+"/echo"); code != http.StatusBadGateway {
		t.Errorf("a route to a stopped function answered %d, want 502", code)
	}

	// A router that dies comes back on its port with its routes.
	fn = r.Up("tether_function", nil, map[string]cty.Value{"command": r.echo()})
	echo = r.Up("tether_route", echo, routeAttrs(routerID, "GET", "/echo", providercheck.String(t, fn.State, "url")))
	routerPID := pidOf(t, router)
	killPID(t, routerPID)
	waitFor(context.Background(), 5*time.Second, func() bool { return !alive(routerPID) })
	stopped, diags := r.Refresh(router)
	if stopped == nil || !stopped.State.GetAttr("pid").IsNull() || len(diags) != 1 {
		t.Fatalf("refresh of a dead router: %#v %v", stopped, diags)
	}
	// Its routes are still on record.
	if again, _ := r.Refresh(echo); again == nil {
		t.Fatal("the route vanished with its router's process")
	}
	router = r.Up("tether_router", stopped, nil)
	if got := providercheck.String(t, router.State, "url"); got != url {
		t.Fatalf("the router came back on %s, not %s", got, url)
	}
	if code, body := get(t, "GET", url+"/echo?message=back"); code != 200 || body != "back" {
		t.Fatalf("GET /echo after the router restarted: %d %q", code, body)
	}

	// A route removed behind Tether's back is drift.
	if err := removeRoute(context.Background(), filepath.Join(r.root, routerID), entryOf(panicky.State)); err != nil {
		t.Fatal(err)
	}
	if o, _ := r.Refresh(panicky); o != nil {
		t.Errorf("a removed route still reads back: %#v", o.State)
	}

	// Destroy: routes first, then what they route to.
	r.Down(echo)
	if code, _ := get(t, "GET", url+"/echo"); code != 404 {
		t.Errorf("a deleted route answered %d, want 404", code)
	}
	fnPID, fnURL = pidOf(t, fn), providercheck.String(t, fn.State, "url")
	r.Down(fn)
	r.gone(fnPID, fnURL, filepath.Join(r.root, providercheck.String(t, fn.State, "id")))
	routerPID = pidOf(t, router)
	r.Down(router)
	r.gone(routerPID, url, filepath.Join(r.root, routerID))
}

func TestRouterPortInUse(t *testing.T) {
	r := newRT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_, diags := r.Try("tether_router", nil, map[string]cty.Value{"port": cty.NumberIntVal(int64(port))})
	providercheck.WantAttrError(t, diags, "port")
	l.Close()

	// Free now: the router takes it.
	router := r.Up("tether_router", nil, map[string]cty.Value{"port": cty.NumberIntVal(int64(port))})
	if got := providercheck.String(t, router.State, "url"); got != loopbackURL(port) {
		t.Fatalf("url %s, want port %d", got, port)
	}
	// A route to a router that does not exist names the id.
	_, diags = r.Try("tether_route", nil, routeAttrs("0123456789abcdef", "GET", "/", "http://127.0.0.1:1"))
	if !strings.Contains(diags.Error(), `no running tether_router with id "0123456789abcdef"`) {
		t.Errorf("a route to a missing router: %s", diags.Error())
	}
	pid := pidOf(t, router)
	r.Down(router)
	r.gone(pid, loopbackURL(port), filepath.Join(r.root, providercheck.String(t, router.State, "id")))
}

func TestRouteValidation(t *testing.T) {
	r := newRT(t)
	for _, tc := range []struct {
		attr                 string
		method, path, target string
		detail               string
	}{
		{"method", "get", "/", "http://127.0.0.1:1", `Write it in upper case: "GET"`},
		{"method", "CONNECT", "/", "http://127.0.0.1:1", "cannot serve the method"},
		{"path", "GET", "echo", "http://127.0.0.1:1", `must start with "/"`},
		{"path", "GET", "/echo me", "http://127.0.0.1:1", "space"},
		{"path", "GET", "/a/{x", "http://127.0.0.1:1", "not one the router can match"},
		{"path", "GET", "/{x}/{x}", "http://127.0.0.1:1", "not one the router can match"},
		{"target", "GET", "/", "ftp://127.0.0.1", "not an http URL"},
		{"target", "GET", "/", "http://127.0.0.1:1/?a=b", "query"},
	} {
		diags := r.Provider.ValidateResourceConfig("tether_route", r.Config("tether_route", routeAttrs("x", tc.method, tc.path, tc.target)))
		providercheck.WantAttrError(t, diags, tc.attr)
		if !strings.Contains(diags.Error(), tc.detail) {
			t.Errorf("%s %s %s: %s lacks %q", tc.method, tc.path, tc.target, diags.Error(), tc.detail)
		}
	}
	for _, p := range []string{"/", "/echo", "/static/", "/items/{id}", "/files/{path...}", "/{$}"} {
		if d := r.Provider.ValidateResourceConfig("tether_route", r.Config("tether_route", routeAttrs("x", "ANY", p, "http://127.0.0.1:1"))); d.HasErrors() {
			t.Errorf("path %s: %s", p, d.Error())
		}
	}
	// Changing where a route is replaces it; changing its target does not.
	prior := &providercheck.Object{Type: "tether_route", State: routeObject(r.Config("tether_route", routeAttrs("r1", "GET", "/a", "http://127.0.0.1:1")), cty.StringVal("id1"))}
	pr := r.Plan("tether_route", prior, routeAttrs("r1", "GET", "/b", "http://127.0.0.1:2"))
	if !providercheck.HasReplace(pr.RequiresReplace, "path") || providercheck.HasReplace(pr.RequiresReplace, "target") {
		t.Errorf("requires replace: %v", pr.RequiresReplace)
	}
}

func TestRoutesFileFormat(t *testing.T) {
	// The routes file is what a restarted router reads: keep it plain.
	dir := t.TempDir()
	want := []routeEntry{{ID: "a", Method: "GET", Path: "/echo", Target: "http://127.0.0.1:1"}}
	if err := writeJSON(filepath.Join(dir, routesFileName), routesFile{Routes: want}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, routesFileName))
	var raw map[string][]map[string]string
	if err := json.Unmarshal(b, &raw); err != nil || raw["routes"][0]["path"] != "/echo" {
		t.Fatalf("routes file: %s (%v)", b, err)
	}
	got, err := loadRoutes(dir)
	if err != nil || len(got) != 1 || got[0] != want[0] {
		t.Fatalf("loadRoutes: %v %v", got, err)
	}
}

// The admin endpoint takes "Bearer <token>" and nothing else, and a
// router whose token is empty takes nothing at all.
func TestRouterAdminToken(t *testing.T) {
	for _, tc := range []struct {
		name, token, header string
		want                int
	}{
		{"bearer", "s3cret", "Bearer s3cret", http.StatusOK},
		{"raw token", "s3cret", "s3cret", http.StatusUnauthorized},
		{"wrong token", "s3cret", "Bearer other", http.StatusUnauthorized},
		{"no header", "s3cret", "", http.StatusUnauthorized},
		{"empty token, empty bearer", "", "Bearer ", http.StatusUnauthorized},
		{"empty token, no header", "", "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &routerServer{dir: t.TempDir(), token: tc.token, routes: map[string]routeEntry{}}
			req := httptest.NewRequest("GET", "/v1/routes", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			w := httptest.NewRecorder()
			s.admin().ServeHTTP(w, req)
			if w.Code != tc.want {
				t.Errorf("answered %d, want %d", w.Code, tc.want)
			}
		})
	}
}

// A router whose token file was emptied gets a new token when it starts
// again, and its routes still work; a router process that finds an empty
// token refuses to start.
func TestRouterEmptyTokenFile(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	routerID, url := providercheck.String(t, router.State, "id"), providercheck.String(t, router.State, "url")
	fn := r.Up("tether_function", nil, map[string]cty.Value{"command": r.echo()})
	route := r.Up("tether_route", nil, routeAttrs(routerID, "GET", "/echo", providercheck.String(t, fn.State, "url")))

	tokenPath := filepath.Join(r.root, routerID, tokenFileName)
	if code := runRouter([]string{"--dir", t.TempDir(), "--port", "0"}, io.Discard); code == 0 {
		t.Errorf("a router without a token file started")
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, tokenFileName), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if code := runRouter([]string{"--dir", empty, "--port", "0"}, &log); code != 1 || !strings.Contains(log.String(), "is empty") {
		t.Errorf("a router with an empty token started: %d %s", code, log.String())
	}

	routerPID := pidOf(t, router)
	killPID(t, routerPID)
	waitFor(context.Background(), 5*time.Second, func() bool { return !alive(routerPID) })
	if err := os.WriteFile(tokenPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stopped, _ := r.Refresh(router)
	router = r.Up("tether_router", stopped, nil)
	tok, _ := os.ReadFile(tokenPath)
	if strings.TrimSpace(string(tok)) == "" {
		t.Fatal("the router restarted with an empty token")
	}
	if code, body := get(t, "GET", url+"/echo?message=back"); code != 200 || body != "back" {
		t.Fatalf("GET /echo after the restart: %d %q", code, body)
	}
	r.Down(route)
	r.Down(fn)
	r.Down(router)
}

// TestRouteLeftByAnInterruptedCreate puts on the router what a run
// interrupted while adding a route leaves there: the route, still pending
// on a process that is gone, and in no state. The next run's route for
// the same method and path replaces it; a route still being added by a
// live process is refused as before.
func TestRouteLeftByAnInterruptedCreate(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	routerID, url := providercheck.String(t, router.State, "id"), providercheck.String(t, router.State, "url")
	fn := r.Up("tether_function", nil, map[string]cty.Value{"command": r.echo()})
	fnURL := providercheck.String(t, fn.State, "url")

	// The interrupted run is a process that adds its route and ends.
	ended := exec.Command("sleep", "30")
	if err := ended.Start(); err != nil {
		t.Fatal(err)
	}
	gone := identify(ended.Process.Pid)
	live := identify(os.Getpid())
	a, err := openRouter(filepath.Join(r.root, routerID))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []routeEntry{
		{ID: "interrupted", Method: "GET", Path: "/echo", Target: "http://127.0.0.1:1", Pending: &gone},
		{ID: "in-progress", Method: "GET", Path: "/busy", Target: fnURL, Pending: &live},
	} {
		if err := a.call(context.Background(), http.MethodPut, e); err != nil {
			t.Fatal(err)
		}
	}
	ended.Process.Kill()
	ended.Wait()
	// A request of that process that the router handles only now is
	// refused: its run is over.
	late := routeEntry{ID: "late", Method: "GET", Path: "/late", Target: fnURL, Pending: &gone}
	if err := a.call(context.Background(), http.MethodPut, late); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("a pending route from a process that has ended: %v", err)
	}

	echo := r.Up("tether_route", nil, routeAttrs(routerID, "GET", "/echo", fnURL))
	if code, body := get(t, "GET", url+"/echo?message=again"); code != 200 || body != "again" {
		t.Errorf("GET /echo after the route was replaced: %d %q", code, body)
	}
	if again, _ := r.Refresh(echo); again == nil {
		t.Error("the route that replaced the interrupted one is not on record")
	}
	_, diags := r.Try("tether_route", nil, routeAttrs(routerID, "GET", "/busy", fnURL))
	if !strings.Contains(diags.Error(), "GET /busy is already routed") {
		t.Errorf("a route for GET /busy, still being added by a live process: %s", diags.Error())
	}
	r.Down(echo)
	r.Down(fn)
	r.Down(router)
}

// lateRequests parks the nth PUT to a router's admin endpoint: the
// caller gets "context canceled" at once, as a run stopped by SIGTERM
// does, and the router gets the request only when the test releases it,
// as one it had accepted before the client gave up and handles later.
type lateRequests struct {
	nth    int
	puts   int
	parked *http.Request
	body   []byte
}

func (l *lateRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut {
		l.puts++
		if l.puts == l.nth {
			l.body, _ = io.ReadAll(req.Body)
			l.parked = req.Clone(context.Background())
			return nil, context.Canceled
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// release sends the parked request now, and returns the router's status.
func (l *lateRequests) release(t *testing.T) int {
	t.Helper()
	if l.parked == nil {
		t.Fatal("no request was parked")
	}
	l.parked.Body = io.NopCloser(bytes.NewReader(l.body))
	resp, err := http.DefaultTransport.RoundTrip(l.parked)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func routesHeld(t *testing.T, dir string) []routeEntry {
	t.Helper()
	routes, err := loadRoutes(dir)
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

// TestRouteConfirmArrivingLate is the bench/trials route failure made
// deterministic: the run adding a route is stopped while it confirms it;
// the route is recorded tainted under its id; the next run's replacement
// deletes it; and only then does the router handle the confirm the
// stopped run had sent. That confirm must not bring the deleted route
// back, or the replacement is refused by the very route it replaced
// ("already routed ... by another tether_route") in every later run.
func TestRouteConfirmArrivingLate(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	routerID := providercheck.String(t, router.State, "id")
	dir := filepath.Join(r.root, routerID)
	attrs := routeAttrs(routerID, "GET", "/late", "http://127.0.0.1:9/late")

	defer r.CleanUp(router)
	late := &lateRequests{nth: 2} // the pending PUT goes through, the confirm is parked
	adminClient = &http.Client{Transport: late}
	t.Cleanup(func() { adminClient = http.DefaultClient })
	tainted, diags := r.Try("tether_route", nil, attrs)
	if tainted == nil || !strings.Contains(diags.Error(), "confirming the route GET /late") {
		t.Fatalf("the interrupted create: %v, %v", tainted, diags)
	}
	adminClient = http.DefaultClient
	r.Down(tainted)
	if status := late.release(t); status/100 == 2 {
		t.Errorf("the router accepted the confirm of a route deleted since (%d)", status)
	}

	fresh, diags := r.Try("tether_route", nil, attrs)
	if diags.HasErrors() {
		t.Fatalf("the replacement after the late confirm: %v (the router holds %+v)", diags, routesHeld(t, dir))
	}
	held := routesHeld(t, dir)
	if len(held) != 1 || held[0].ID != providercheck.String(t, fresh.State, "id") || held[0].Pending != nil {
		t.Errorf("the router holds %+v, want only the replacement %s, confirmed", held, providercheck.String(t, fresh.State, "id"))
	}
	r.Down(fresh)
	r.Down(router)
}

// TestRouteAdoptedByItsOwner: the router holds a confirmed route that no
// state records (the run that added it could not record it: a full disk,
// or a kill between the router's answer and the commit). The next run's
// route of the same resource address, to the same target, replaces it;
// another address, or another target, is still refused.
func TestRouteAdoptedByItsOwner(t *testing.T) {
	r := newRT(t)
	router := r.Up("tether_router", nil, nil)
	routerID := providercheck.String(t, router.State, "id")
	defer r.CleanUp(router)
	dir := filepath.Join(r.root, routerID)
	const owner = "tether_route.api[\"v1\"]"
	a, err := openRouter(dir)
	if err != nil {
		t.Fatal(err)
	}
	target := "http://127.0.0.1:9/api"
	if err := a.call(context.Background(), http.MethodPut, routeEntry{ID: "unrecorded", Method: "GET", Path: "/api", Target: target, Owner: owner}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, owner, target string }{
		{"another address", "tether_route.other", target},
		{"another target", owner, "http://127.0.0.1:9/elsewhere"},
		{"no address", "", target},
	} {
		h := r.WithContext(provider.WithObject(context.Background(), c.owner))
		if _, diags := h.Try("tether_route", nil, routeAttrs(routerID, "GET", "/api", c.target)); !strings.Contains(diags.Error(), "GET /api is already routed") {
			t.Errorf("%s: %v", c.name, diags)
		}
	}
	h := r.WithContext(provider.WithObject(context.Background(), owner))
	adopted, diags := h.Try("tether_route", nil, routeAttrs(routerID, "GET", "/api", target))
	if diags.HasErrors() {
		t.Fatalf("the same address and target: %v", diags)
	}
	held := routesHeld(t, dir)
	if len(held) != 1 || held[0].ID != providercheck.String(t, adopted.State, "id") || held[0].Pending != nil {
		t.Errorf("the router holds %+v, want only the adopting route", held)
	}
	r.Down(adopted)
	r.Down(router)
}
