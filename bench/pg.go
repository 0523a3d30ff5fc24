package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tetherhq/tether/internal/pgtest"
)

// The PostgreSQL cases (--pg N,...) run the wide shape of N resources with
// state in SQLite and in PostgreSQL: first apply and no-op plan, each one
// tether process, on a throwaway cluster in the temporary folder with fsync
// on and the server's defaults otherwise (synchronous_commit on: every
// group of commits is flushed to disk before up goes on).

// pgResult is one size's figures on each store.
type pgResult struct {
	n          int
	sqlite, pg map[string]measurement
	// remote are the --remote stores' figures (remote.go), by store.
	remote         map[string]map[string]measurement
	err            string
	serverVersion  string
	serverSettings string
}

func parsePGSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--pg: %q is not a number of resources", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// runPG measures one size on both stores.
func (h *harness) runPG(ctx context.Context, n int, remotes []string) pgResult {
	res := pgResult{n: n, sqlite: map[string]measurement{}, pg: map[string]measurement{}, remote: map[string]map[string]measurement{}}
	srv, err := pgtest.StartWith(pgtest.Options{Fsync: true})
	if err != nil {
		res.err = err.Error()
		return res
	}
	defer srv.Stop()
	res.serverSettings = "fsync on, synchronous_commit on"
	if bin, err := pgtest.Binaries(); err == nil {
		// Debian's /usr/lib/postgresql/NN/bin, found through a symlink.
		if real, err := filepath.EvalSymlinks(filepath.Join(bin, "initdb")); err == nil {
			bin = filepath.Dir(real)
		}
		res.serverVersion = filepath.Base(filepath.Dir(bin))
	}
	for _, store := range append([]string{"sqlite", "pg"}, remotes...) {
		h.seq++
		dir := filepath.Join(h.tmp, fmt.Sprintf("%03d-pg-%s-%d", h.seq, store, n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			res.err = err.Error()
			return res
		}
		sp := spec{shape: shapeWide, n: n, resType: "tether_value", perFile: h.perFile, changed: -1}
		if err := generate(dir, sp); err != nil {
			res.err = err.Error()
			return res
		}
		t := newTether(h.tetherBin, h.parallelism)
		into := res.sqlite
		if remoteStores[store] != nil {
			into = map[string]measurement{}
			res.remote[store] = into
			stop, err := remoteStores[store](dir, t)
			if err != nil {
				res.err = fmt.Sprintf("%s: %v", store, err)
				return res
			}
			defer stop()
			if m := t.exec(ctx, dir, "init", []string{"init"}, "", h.timeout); !m.ok() {
				res.err = store + ": " + m.Err
				return res
			}
		}
		if store == "pg" {
			into = res.pg
			if err := os.WriteFile(filepath.Join(dir, "backend.tf"), []byte("terraform {\n  backend \"pg\" {}\n}\n"), 0o644); err != nil {
				res.err = err.Error()
				return res
			}
			t.env = append(t.env, "PG_CONN_STR="+srv.ConnString(""), fmt.Sprintf("PG_SCHEMA_NAME=bench_%d", n))
			if m := t.exec(ctx, dir, "init", []string{"init"}, "", h.timeout); !m.ok() {
				res.err = m.Err
				return res
			}
		}
		for _, step := range []string{stepApply, stepPlan} {
			fmt.Fprintf(os.Stderr, "  %s %d %s ...\n", store, n, step)
			into[step] = t.run(ctx, dir, step, n, h.timeout)
		}
	}
	return res
}

// pgTable reports the PostgreSQL cases.
func (r *report) pgTable(b *strings.Builder) {
	if len(r.pg) == 0 {
		return
	}
	b.WriteString("## PostgreSQL state\n\n")
	b.WriteString("The wide shape with state in SQLite (`.tether/state.db`) and in PostgreSQL (`backend \"pg\"`), each step one `tether` process. ")
	for _, p := range r.pg {
		if p.serverVersion != "" {
			fmt.Fprintf(b, "PostgreSQL %s on 127.0.0.1, a throwaway cluster on the same machine, %s. ", p.serverVersion, p.serverSettings)
			break
		}
	}
	b.WriteString("Ratio is PostgreSQL ÷ SQLite.\n\n")
	b.WriteString("| N | step | SQLite wall s | SQLite CPU s | PostgreSQL wall s | PostgreSQL CPU s | PostgreSQL peak MiB | ratio (wall) |\n|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.pg {
		if p.err != "" {
			fmt.Fprintf(b, "| %d | — | failed: %s | | | | | |\n", p.n, oneLine(p.err))
			continue
		}
		for _, step := range []string{stepApply, stepPlan} {
			s, g := p.sqlite[step], p.pg[step]
			if !s.ok() || !g.ok() {
				fmt.Fprintf(b, "| %d | %s | failed: %s | | | | | |\n", p.n, step, oneLine(s.Err+" "+g.Err))
				continue
			}
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %.0f | %.2f× |\n", p.n, step, secs(s.Wall), secs(s.CPU),
				secs(g.Wall), secs(g.CPU), mib(g.MaxRSS), g.Wall.Seconds()/s.Wall.Seconds())
		}
	}
	b.WriteString("\n")
}

// pgTargets are issue 12's: on PostgreSQL, the 10,000 wide first apply
// within 2× of SQLite's and the no-op plan within 1.5×.
func (r *report) pgTargets(row func(target, measured, status string), verdict func(bool) string) {
	for _, t := range []struct {
		step  string
		limit float64
	}{{stepApply, 2}, {stepPlan, 1.5}} {
		target := fmt.Sprintf("10,000 wide on PostgreSQL, %s within %.1f× of SQLite", t.step, t.limit)
		found := false
		for _, p := range r.pg {
			s, g := p.sqlite[t.step], p.pg[t.step]
			if p.n != 10000 || !s.ok() || !g.ok() {
				continue
			}
			found = true
			ratio := g.Wall.Seconds() / s.Wall.Seconds()
			row(target, fmt.Sprintf("%.2f× (%s s ÷ %s s)", ratio, secs(g.Wall), secs(s.Wall)), verdict(ratio <= t.limit))
		}
		if !found {
			row(target, "", "not measured in this run (--pg 10000)")
		}
	}
}
