package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The route and diskfull kinds interrupt an up in ways other than a
// kill, and recover with a plain `up --yes` only: a recovery that needs
// `tether state unlock` or the router destroyed fails the trial.
//
//   - route: a tether_router already up and -resources tether_routes
//     added to it; SIGTERM 0-20 ms after the router's routes file first
//     holds a route (the routes are then being added). Then
//     every route must be in state once and in the router once, with the
//     id state records, and none left pending.
//   - diskfull: .tether on a 1 MiB tmpfs, filled to the last byte at a
//     random moment of the first half of the up, counted from when the
//     state file's log appears; the filler removed, the next up must
//     converge. Needs root (mount); skipped otherwise.

// recoveryKinds are the kinds whose recovery may not break a lock.
var recoveryKinds = map[string]bool{"route": true, "diskfull": true}

// routeConfig is a router with n routes, each to a target of its own.
func routeConfig(n int) string {
	return fmt.Sprintf(`resource "tether_router" "main" {}

resource "tether_route" "r" {
  count     = %d
  router_id = tether_router.main.id
  method    = "GET"
  path      = "/r/${count.index}"
  target    = "http://127.0.0.1:9/t${count.index}"
}
`, n)
}

// routesOnRouter reads the routes file of the router with id in dir's
// runtime folder; a file not yet written holds no route.
type routeOnRouter struct {
	ID, Method, Path, Target string
	Pending                  json.RawMessage
}

func routesOnRouter(dir, id string) ([]routeOnRouter, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".tether", "runtime", id, "routes.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct{ Routes []routeOnRouter }
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("routes.json: %v", err)
	}
	return f.Routes, nil
}

func pendingRoutes(routes []routeOnRouter) int {
	n := 0
	for _, r := range routes {
		if len(r.Pending) > 0 && string(r.Pending) != "null" {
			n++
		}
	}
	return n
}

// routeState is the router and the routes state records.
type routeState struct {
	router string
	routes []routeOnRouter
}

func (t *trials) routeState(dir string) (routeState, error) {
	var s routeState
	out, err := t.tether(dir, "state", "pull")
	if err != nil {
		return s, fmt.Errorf("state pull: %v: %s", err, lastLines(out, 3))
	}
	var f struct {
		Resources []struct {
			Type      string
			Instances []struct{ Attributes map[string]any }
		}
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		return s, fmt.Errorf("state pull wrote something unreadable: %v", err)
	}
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			switch r.Type {
			case "tether_router":
				s.router = str(in.Attributes, "id")
			case "tether_route":
				s.routes = append(s.routes, routeOnRouter{ID: str(in.Attributes, "id"), Method: str(in.Attributes, "method"),
					Path: str(in.Attributes, "path"), Target: str(in.Attributes, "target")})
			}
		}
	}
	return s, nil
}

// prepareRoute applies the router alone, then writes the configuration
// with its routes.
func (t *trials) prepareRoute(name string) (string, error) {
	dir := filepath.Join(t.work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(routeConfig(0)), 0o644); err != nil {
		return dir, err
	}
	if out, err := t.tether(dir, "up", "--yes"); err != nil {
		return dir, fmt.Errorf("up of the router: %v\n%s", err, out)
	}
	return dir, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(routeConfig(t.o.resources)), 0o644)
}

// startUp starts the up to interrupt in dir; done gets its end. It
// returns a nil command when it could not start.
func (t *trials) startUp(dir string, out *bytes.Buffer, fail func(string, ...any)) (*exec.Cmd, chan error) {
	cmd := exec.Command(t.o.tether, t.command("up")...)
	cmd.Dir, cmd.Env = dir, t.env
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		fail("%v", err)
		return nil, nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done
}

// waitEnd waits for an interrupted run to stop by itself, as SIGTERM and
// a full disk both let it; one still running after two minutes is killed
// and the trial fails.
func waitEnd(cmd *exec.Cmd, done chan error, out *bytes.Buffer, r *result, fail func(string, ...any)) {
	select {
	case err := <-done:
		r.ended = "exit 0"
		if err != nil {
			r.ended = firstError(out.String())
		}
		if s := out.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			fail("the interrupted up panicked: %s", lastLines(s, 6))
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		fail("the interrupted up was still running two minutes later")
	}
}

// recoverUp runs the plain up that must converge; needing a lock broken
// is a failure.
func (t *trials) recoverUp(dir string, fail func(string, ...any)) (string, bool) {
	out, err := t.tether(dir, "up", "--yes")
	if err != nil {
		if strings.Contains(out, "state unlock") || strings.Contains(out, "is no longer running") {
			fail("the recovery up needs `tether state unlock`: %s", lastLines(out, 6))
		} else {
			fail("recovery up failed: %v: %s", err, lastLines(out, 6))
		}
		return out, false
	}
	if out, err := t.tether(dir, "plan", "--detailed-exitcode"); err != nil {
		fail("the next plan is not clean (%v): %s", err, lastLines(out, 6))
	}
	return out, true
}

func (t *trials) routeTrial(i int) result {
	r := result{kind: "route"}
	fail := func(format string, args ...any) { r.problems = append(r.problems, fmt.Sprintf(format, args...)) }
	dir, err := t.prepareRoute(fmt.Sprintf("trial-%d", i))
	r.dir = dir
	defer func() {
		// The router runs on after tether: destroy stops it.
		if out, err := t.tether(dir, "destroy", "--yes"); err != nil {
			fail("destroy after the trial: %v: %s", err, lastLines(out, 4))
		}
		if dir != "" && (len(r.problems) == 0 || !t.o.keep) {
			os.RemoveAll(dir)
		}
	}()
	if err != nil {
		fail("%v", err)
		return r
	}
	before, err := t.routeState(dir)
	if err != nil || before.router == "" {
		fail("no router in state after its up: %v", err)
		return r
	}
	var out bytes.Buffer
	cmd, done := t.startUp(dir, &out, fail)
	if cmd == nil {
		return r
	}
	started := time.Now()
	delay := time.Duration(t.rng.Int64N(int64(20 * time.Millisecond)))
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case err := <-done:
			r.finished = true
			done <- err
			break wait
		case <-tick.C:
		}
		if routes, _ := routesOnRouter(dir, before.router); len(routes) > 0 {
			time.Sleep(delay)
			r.killedAt = time.Since(started)
			cmd.Process.Signal(syscall.SIGTERM)
			break
		}
	}
	waitEnd(cmd, done, &out, &r, fail)
	if routes, err := routesOnRouter(dir, before.router); err == nil {
		r.onRouter, r.pendingAtKill = len(routes), pendingRoutes(routes)
	}
	if s, err := t.routeState(dir); err == nil {
		r.recordedAtKill = len(s.routes)
	} else {
		r.unreadable = err.Error()
	}
	if len(r.problems) > 0 {
		return r
	}
	if rout, ok := t.recoverUp(dir, fail); !ok {
		t.unrecorded(dir, before.router, out.String(), rout, fail)
		return r
	}
	t.checkRoutes(dir, before.router, fail)
	return r
}

// unrecorded says which routes the router holds that state does not, to
// tell a route confirmed and never recorded from one left pending.
func (t *trials) unrecorded(dir, router, interrupted, recovery string, fail func(string, ...any)) {
	s, err := t.routeState(dir)
	if err != nil {
		return
	}
	on, err := routesOnRouter(dir, router)
	if err != nil {
		return
	}
	ids := map[string]bool{}
	for _, r := range s.routes {
		ids[r.ID] = true
	}
	var lacking []string
	for _, e := range on {
		if !ids[e.ID] {
			how := "confirmed"
			if pendingRoutes([]routeOnRouter{e}) > 0 {
				how = "pending on " + string(e.Pending)
			}
			lacking = append(lacking, fmt.Sprintf("%s %s (%s, %s; the interrupted run said of it: %s; the recovery: %s)", e.Method, e.Path, e.ID, how, said(interrupted, e.Path), said(recovery, e.Path)))
		}
	}
	fail("the router holds %d routes state does not: %s", len(lacking), strings.Join(lacking, ", "))
}

// said is what the interrupted run printed about the route to path
// /r/N, tether_route.r[N], with the lines after an error's first.
func said(out, path string) string {
	addr := "tether_route.r[" + strings.TrimPrefix(path, "/r/") + "]"
	var keep []string
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, addr) || strings.Contains(l, path+":") || strings.Contains(l, path+" ") {
			keep = append(keep, strings.TrimSpace(l))
			if strings.Contains(l, "Error") && i+5 < len(lines) {
				keep = append(keep, strings.TrimSpace(strings.Join(lines[i+1:i+6], " ")))
			}
		}
	}
	if len(keep) == 0 {
		return "nothing"
	}
	return strings.Join(keep, " / ")
}

// checkRoutes checks that every route is in state once and on the router
// once, with the same id, confirmed.
func (t *trials) checkRoutes(dir, router string, fail func(string, ...any)) {
	s, err := t.routeState(dir)
	if err != nil {
		fail("%v", err)
		return
	}
	if s.router != router {
		fail("the router was replaced: %s, was %s", s.router, router)
	}
	on, err := routesOnRouter(dir, s.router)
	if err != nil {
		fail("%v", err)
		return
	}
	if len(s.routes) != t.o.resources || len(on) != t.o.resources {
		fail("state records %d routes and the router holds %d, want %d", len(s.routes), len(on), t.o.resources)
	}
	held := map[string][]routeOnRouter{}
	for _, e := range on {
		held[e.Method+" "+e.Path] = append(held[e.Method+" "+e.Path], e)
	}
	seen := map[string]bool{}
	for _, sr := range s.routes {
		k := sr.Method + " " + sr.Path
		if seen[k] {
			fail("%s is in state twice", k)
		}
		seen[k] = true
		switch h := held[k]; {
		case len(h) != 1:
			fail("%s is on the router %d times", k, len(h))
		case h[0].ID != sr.ID || h[0].Target != sr.Target:
			fail("%s on the router is route %s to %s, state records %s to %s", k, h[0].ID, h[0].Target, sr.ID, sr.Target)
		case pendingRoutes(h) > 0:
			fail("%s is still pending on the router", k)
		}
	}
}

// diskfullTrial mounts a 1 MiB tmpfs on the trial's .tether and fills it
// at a random moment of the up.
func (t *trials) diskfullTrial(i int, d time.Duration) result {
	r := result{kind: "diskfull"}
	fail := func(format string, args ...any) { r.problems = append(r.problems, fmt.Sprintf(format, args...)) }
	dir, err := t.folder(fmt.Sprintf("trial-%d", i), false)
	r.dir = dir
	if err != nil {
		fail("%v", err)
		return r
	}
	dot, err := mountSmall(dir)
	mounted := err == nil
	defer func() {
		if mounted {
			if err := syscall.Unmount(dot, 0); err != nil {
				fail("umount %s: %v", dot, err)
			}
		}
		if len(r.problems) == 0 || !t.o.keep {
			os.RemoveAll(dir)
		}
	}()
	if err != nil {
		fail("%v", err)
		return r
	}
	var out bytes.Buffer
	cmd, done := t.startUp(dir, &out, fail)
	if cmd == nil {
		return r
	}
	// Filled at a random moment of the first half of the run after the
	// state file is open (its log exists): the apply, not the startup.
	started := time.Now()
	delay := time.Duration(t.rng.Int64N(int64(d / 2)))
	filler := filepath.Join(dot, "filler")
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var fillAt <-chan time.Time
wait:
	for {
		select {
		case err := <-done:
			r.finished = true
			done <- err
			break wait
		case <-fillAt:
			r.killedAt = time.Since(started)
			if err := fill(filler); err != nil {
				fail("filling %s: %v", dot, err)
			}
			break wait
		case <-tick.C:
			if _, err := os.Stat(filepath.Join(dot, "state.db-wal")); fillAt == nil && err == nil {
				fillAt = time.After(delay)
			}
		}
	}
	waitEnd(cmd, done, &out, &r, fail)
	if objs, err := t.recorded(dir); err == nil {
		r.recordedAtKill = len(objs)
	} else {
		r.unreadable = err.Error()
	}
	if err := os.Remove(filler); err != nil && !errors.Is(err, os.ErrNotExist) {
		fail("%v", err)
	}
	if len(r.problems) > 0 {
		return r
	}
	if _, ok := t.recoverUp(dir, fail); ok {
		t.check(dir, "up", fail)
	}
	return r
}

// mountSmall mounts a 1 MiB tmpfs on dir's .tether.
func mountSmall(dir string) (string, error) {
	dot := filepath.Join(dir, ".tether")
	if err := os.MkdirAll(dot, 0o755); err != nil {
		return dot, err
	}
	if err := syscall.Mount("tmpfs", dot, "tmpfs", 0, "size=1m"); err != nil {
		return dot, fmt.Errorf("mount tmpfs on %s: %v", dot, err)
	}
	return dot, nil
}

// fill writes to path until the file system is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return nil
		}
		return err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// recoveryReport is the Markdown section of a route or diskfull series.
func (t *trials) recoveryReport(results []result, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `go run ./bench/trials -n %d -resources %d -parallelism %d -kinds %s -seed %d` on %s (%s/%s, %d cores): %d trials, %v in all.\n\n",
		t.o.n, t.o.resources, t.o.parallelism, strings.Join(t.o.kinds, ","), t.o.seed, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), len(results), took.Round(time.Second))
	b.WriteString("| kind | trial | interrupted after | ended | state held (objects) | router held (pending) | failed |\n|---|---:|---:|---|---:|---|---|\n")
	for i, r := range results {
		ended := r.ended
		if r.finished {
			ended = "finished first: " + ended
		}
		router := "-"
		if r.kind == "route" {
			router = fmt.Sprintf("%d (%d)", r.onRouter, r.pendingAtKill)
		}
		failed := "no"
		if len(r.problems) > 0 {
			failed = strings.Join(r.problems, "; ")
		}
		fmt.Fprintf(&b, "| %s | %d | %v | `%s` | %d | %s | %s |\n", r.kind, i+1, r.killedAt.Round(time.Millisecond), ended, r.recordedAtKill, router, failed)
	}
	return b.String()
}

// skipDiskfull drops diskfull from kinds unless this process may mount.
func skipDiskfull(kinds []string) []string {
	if os.Geteuid() == 0 {
		return kinds
	}
	var kept []string
	for _, k := range kinds {
		if k != "diskfull" {
			kept = append(kept, k)
		}
	}
	return kept
}
