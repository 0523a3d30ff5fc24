package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tetherhq/tether/internal/pgtest"
)

type options struct {
	n, resources, parallelism int
	kinds                     []string
	tether, write             string
	seed                      uint64
	keep, pg, s3, gcs         bool
}

func main() {
	var o options
	var kinds string
	flag.IntVar(&o.n, "n", 200, "trials in all, shared among the kinds")
	flag.IntVar(&o.resources, "resources", 300, "files per trial, each with a slow value before it")
	flag.IntVar(&o.parallelism, "parallelism", 16, "tether --parallelism, so that an apply takes a while")
	flag.StringVar(&kinds, "kinds", "up,destroy", "what is interrupted (comma-separated): up, destroy; with -pg also migrate (init -migrate-state from local state) and restart (PostgreSQL restarted during up); apart from those, route (SIGTERM while -resources tether_routes are added) and diskfull (.tether on a 1 MiB tmpfs filled during up; needs root)")
	flag.StringVar(&o.tether, "tether", "", "tether binary (default: built from ./cmd/tether)")
	flag.BoolVar(&o.pg, "pg", false, "keep state in PostgreSQL (backend \"pg\"), on a throwaway cluster the trials start")
	flag.BoolVar(&o.s3, "s3", false, "keep state in S3 (backend \"s3\" with its lock file and DynamoDB lock), on emulators the trials run")
	flag.BoolVar(&o.gcs, "gcs", false, "keep state in Google Cloud Storage (backend \"gcs\" with its lock file), on an emulator the trials run")
	flag.StringVar(&o.write, "write", "", "write the results as Markdown to this file")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "random seed for the kill times")
	flag.BoolVar(&o.keep, "keep", false, "keep the folders of failed trials")
	flag.Parse()
	o.kinds = strings.Split(kinds, ",")
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "trials:", err)
		os.Exit(1)
	}
}

// backend is set when state is in a backend, not in .tether.
func (o options) backend() bool { return o.pg || o.s3 || o.gcs }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// remoteStore is an object store the trials run in their own process, so
// that it outlives every tether killed: block is a trial's backend block,
// with key its own place in the store.
type remoteStore interface {
	block(key string) string
	stop()
}

// result is one trial's outcome.
type result struct {
	kind     string
	killedAt time.Duration
	// finished is set when tether was done before the kill came.
	finished bool
	// unlocked is set when the recovery had to break the dead run's lock.
	unlocked bool
	// recordedAtKill is how many objects state held right after the kill;
	// unreadable says why state pull could not tell.
	recordedAtKill int
	unreadable     string
	// For a migrate trial: moment is when the kill was aimed at (see
	// migrateMoments); copied is set when PostgreSQL held the copy at the
	// kill, migrated when the backend record already named PostgreSQL,
	// setAside when the local files were already in .tether/migrated-*.
	// The destination was then checked complete wherever it held anything,
	// and the source intact wherever it was. leftLocal is set when a copy
	// of the local state still sat in .tether after the recovery.
	moment                                string
	copied, migrated, setAside, leftLocal bool
	// ended is how an interrupted run ended, for a restart trial: "exit 0"
	// or its error's first line.
	ended string
	// For a route trial: the routes the router held after the
	// interrupted run ended, and how many of them were still pending.
	onRouter, pendingAtKill int
	problems                []string
	dir                     string
}

func run(o options) error {
	for _, k := range o.kinds {
		switch k {
		case "up", "destroy", "route", "diskfull":
		case "migrate", "restart":
			if !o.pg {
				return fmt.Errorf("-kinds %s needs -pg", k)
			}
		default:
			return fmt.Errorf("-kinds: %q is not up, destroy, migrate, restart, route or diskfull", k)
		}
		if recoveryKinds[k] && o.backend() {
			return fmt.Errorf("-kinds %s keeps state in .tether: leave out -pg, -s3 and -gcs", k)
		}
		if recoveryKinds[k] != recoveryKinds[o.kinds[0]] {
			return errors.New("-kinds: route and diskfull run apart from the kinds that kill tether")
		}
	}
	if kept := skipDiskfull(o.kinds); len(kept) < len(o.kinds) {
		fmt.Fprintln(os.Stderr, "trials: skipping -kinds diskfull: mounting a tmpfs needs root")
		if o.kinds = kept; len(kept) == 0 {
			return nil
		}
	}
	work, err := os.MkdirTemp("", "tether-trials-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if o.tether == "" {
		o.tether = filepath.Join(work, "tether")
		build := exec.Command("go", "build", "-o", o.tether, "./cmd/tether")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building tether: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(o.seed, 0))
	t := &trials{o: o, work: work, rng: rng, env: trialEnv(work)}
	if n := btoi(o.pg) + btoi(o.s3) + btoi(o.gcs); n > 1 {
		return errors.New("-pg, -s3 and -gcs each choose a backend: give one")
	}
	if o.s3 {
		if t.remote, err = startS3Store(); err != nil {
			return err
		}
		defer t.remote.stop()
	}
	if o.gcs {
		if t.remote, err = startGCSStore(); err != nil {
			return err
		}
		defer t.remote.stop()
	}
	if o.pg {
		// fsync on, as on a real server: a restart trial stops it at once.
		if t.srv, err = pgtest.StartWith(pgtest.Options{Fsync: true}); err != nil {
			return err
		}
		defer t.srv.Stop()
	}
	// How long an uninterrupted run takes bounds the kill times.
	for _, k := range o.kinds {
		d, err := t.calibrate(k)
		if err != nil {
			return err
		}
		t.durations = append(t.durations, d)
		if k == "route" {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s of %d files takes %v uninterrupted\n", k, o.resources, d.Round(time.Millisecond))
	}
	var results []result
	start := time.Now()
	for i := range o.n {
		k := i % len(o.kinds)
		var r result
		switch o.kinds[k] {
		case "route":
			r = t.routeTrial(i)
		case "diskfull":
			r = t.diskfullTrial(i, t.durations[k])
		default:
			r = t.trial(i, o.kinds[k], t.durations[k])
		}
		results = append(results, r)
		status := "ok"
		if len(r.problems) > 0 {
			status = "FAILED: " + strings.Join(r.problems, "; ")
		}
		if r.unreadable != "" {
			status += " (state unreadable right after: " + lastLines(r.unreadable, 2) + ")"
		}
		if r.moment != "" {
			status = "(" + r.moment + ") " + status
		}
		fmt.Fprintf(os.Stderr, "trial %3d %-7s killed at %-8v recorded %3d: %s\n", i+1, r.kind, r.killedAt.Round(time.Millisecond), r.recordedAtKill, status)
		// Written after every trial, so that an interrupted series
		// still reports what it ran.
		if o.write != "" {
			if err := os.WriteFile(o.write, []byte(t.report(results, time.Since(start))), 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Print(t.report(results, time.Since(start)))
	for _, r := range results {
		if len(r.problems) > 0 {
			return errors.New("some trials failed")
		}
	}
	return nil
}

type trials struct {
	o         options
	work      string
	rng       *rand.Rand
	env       []string
	durations []time.Duration
	srv       *pgtest.Server
	// remote is the -s3 or -gcs trials' object store.
	remote remoteStore
	// migrations counts the migrate trials, to take their moments in turn.
	migrations int
}

// trialEnv keeps the key files of every trial in the work folder.
func trialEnv(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "TETHER_") || strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "GOOGLE_") {
			continue
		}
		env = append(env, kv)
	}
	// The -s3 trials' AWS settings are all in the backend block.
	return append(env, "XDG_CONFIG_HOME="+filepath.Join(work, "config"), "NO_COLOR=1",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true")
}

// config is the trial's configuration: each file waits for a value that
// takes 20 to 60 ms, so that an apply with limited parallelism spreads
// over a second or more. schema is the backend "pg" block's schema, none
// for local state.
func (t *trials) config(schema string) string {
	var b strings.Builder
	if schema != "" && t.remote != nil {
		b.WriteString(t.remote.block(schema))
	} else if schema != "" {
		fmt.Fprintf(&b, "terraform {\n  backend \"pg\" {\n    conn_str    = %q\n    schema_name = %q\n  }\n}\n\n", t.srv.ConnString(""), schema)
	}
	fmt.Fprintf(&b, `resource "tether_value" "v" {
  count    = %d
  input    = "value ${count.index}"
  delay_ms = 20 + (count.index %% 5) * 10
}

resource "tether_file" "f" {
  count   = %d
  path    = "out/${count.index}-${tether_value.v[count.index].id}.txt"
  content = tether_value.v[count.index].output
}
`, t.o.resources, t.o.resources)
	return b.String()
}

// folder makes a trial's folder, with its state in PostgreSQL under -pg
// unless local is set.
func (t *trials) folder(name string, local bool) (string, error) {
	dir := filepath.Join(t.work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, t.writeConfig(dir, local)
}

func (t *trials) writeConfig(dir string, local bool) error {
	schema := ""
	if t.o.backend() && !local {
		schema = schemaOf(dir)
	}
	return os.WriteFile(filepath.Join(dir, "main.tf"), []byte(t.config(schema)), 0o644)
}

// schemaOf is the schema of a trial folder's backend "pg" block.
func schemaOf(dir string) string {
	return "trial_" + strings.NewReplacer("-", "_").Replace(filepath.Base(dir))
}

// tether runs a command to its end.
func (t *trials) tether(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.o.tether, args...)
	cmd.Dir, cmd.Env = dir, t.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (t *trials) command(kind string) []string {
	p := fmt.Sprintf("--parallelism=%d", t.o.parallelism)
	switch kind {
	case "destroy":
		return []string{"destroy", "--yes", p}
	case "migrate":
		return []string{"init", "-force-copy"}
	}
	return []string{"up", "--yes", p}
}

// prepare brings a fresh folder to where the interrupted command starts:
// applied for a destroy, applied with local state and then given a
// backend "pg" block for a migration.
func (t *trials) prepare(name, kind string) (string, error) {
	dir, err := t.folder(name, kind == "migrate")
	if err != nil {
		return "", err
	}
	if t.o.backend() && kind != "migrate" {
		if out, err := t.tether(dir, "init"); err != nil {
			return dir, fmt.Errorf("init: %v\n%s", err, out)
		}
	}
	if kind == "destroy" || kind == "migrate" {
		if out, err := t.tether(dir, t.command("up")...); err != nil {
			return dir, fmt.Errorf("up before the %s: %v\n%s", kind, err, out)
		}
	}
	if kind == "migrate" {
		return dir, t.writeConfig(dir, false)
	}
	return dir, nil
}

func (t *trials) calibrate(kind string) (time.Duration, error) {
	if kind == "route" {
		// Its SIGTERM is aimed at the routes file, not timed.
		return 0, nil
	}
	dir, err := t.prepare("calibrate-"+kind, kind)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if kind == "diskfull" {
		// On the small disk too: a run that cannot fit there even
		// uninterrupted (its log grows past 1 MiB) says so here.
		dot, err := mountSmall(dir)
		if err != nil {
			return 0, err
		}
		defer syscall.Unmount(dot, 0)
	}
	start := time.Now()
	if out, err := t.tether(dir, t.command(kind)...); err != nil {
		if kind == "diskfull" {
			return 0, fmt.Errorf("an uninterrupted up of %d files does not fit in 1 MiB; lower -resources: %v\n%s", t.o.resources, err, lastLines(out, 4))
		}
		return 0, fmt.Errorf("calibrating %s: %v\n%s", kind, err, out)
	}
	return time.Since(start), nil
}

// trial runs one interruption and recovery.
func (t *trials) trial(i int, kind string, d time.Duration) result {
	r := result{kind: kind}
	fail := func(format string, args ...any) { r.problems = append(r.problems, fmt.Sprintf(format, args...)) }
	dir, err := t.prepare(fmt.Sprintf("trial-%d", i), kind)
	r.dir = dir
	defer func() {
		if dir != "" && (len(r.problems) == 0 || !t.o.keep) {
			os.RemoveAll(dir)
		}
	}()
	if err != nil {
		fail("%v", err)
		return r
	}

	// Interrupt at a moment spread over the whole run, startup included;
	// a migration, also at moments it reaches only at its very end.
	r.killedAt = time.Duration(t.rng.Int64N(int64(d)))
	if kind == "migrate" {
		r.moment = migrateMoments[t.migrations%len(migrateMoments)]
		t.migrations++
	}
	cmd := exec.Command(t.o.tether, t.command(kind)...)
	cmd.Dir, cmd.Env = dir, t.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		fail("%v", err)
		return r
	}
	started := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	kill := time.After(r.killedAt)
	if r.moment != "" && r.moment != "timed" {
		stop := make(chan struct{})
		defer close(stop)
		kill = t.watchMigration(dir, r.moment, stop)
	}
	select {
	case <-done:
		r.finished = true
	case <-kill:
		r.killedAt = time.Since(started)
		if kind == "restart" {
			t.restart(&r, done, &out, fail)
		} else {
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		}
	}
	if len(r.problems) > 0 {
		return r
	}
	if kind == "migrate" {
		t.checkMigrateKill(dir, &r, fail)
		if len(r.problems) > 0 {
			return r
		}
	} else if objs, err := t.recorded(dir); err == nil {
		r.recordedAtKill = len(objs)
	} else {
		r.unreadable = err.Error()
	}

	// Recover as a user would: the same command again, breaking the lock
	// the killed run left.
	again := kind
	if kind == "restart" {
		again = "up"
	}
	rout, err := t.tether(dir, t.command(again)...)
	if err != nil && strings.Contains(rout, "is no longer running") {
		r.unlocked = true
		if uout, uerr := t.tether(dir, "state", "unlock"); uerr != nil {
			fail("state unlock: %v\n%s", uerr, uout)
			return r
		}
		rout, err = t.tether(dir, t.command(again)...)
	}
	if err != nil {
		fail("recovery %s failed: %v: %s", again, err, lastLines(rout, 6))
		return r
	}
	if kind == "migrate" {
		if _, err := os.Stat(filepath.Join(dir, ".tether", "state.db")); err == nil {
			r.leftLocal = true
		}
	}
	t.check(dir, kind, fail)
	return r
}

// restart stops PostgreSQL at once, as a crash would, and starts it again
// while up runs; the run must then stop by itself (or finish), without a
// panic, within a few minutes.
func (t *trials) restart(r *result, done chan error, out *bytes.Buffer, fail func(string, ...any)) {
	if err := t.srv.Halt(); err != nil {
		fail("stopping PostgreSQL: %v", err)
	}
	if err := t.srv.Start(); err != nil {
		fail("starting PostgreSQL again: %v", err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		fail("up was still running 3 minutes after PostgreSQL restarted")
		return
	}
	text := out.String()
	if strings.Contains(text, "panic:") || strings.Contains(text, "goroutine ") {
		fail("up panicked after PostgreSQL restarted: %s", lastLines(text, 6))
	}
	r.ended = "exit 0"
	if err != nil {
		r.ended = firstError(text)
	}
}

// firstError is the first line of the first error tether printed, with
// the numbers that differ between trials taken out.
func firstError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "Error: "); i >= 0 {
			l = l[i:]
			l = regexp.MustCompile(`[0-9]+`).ReplaceAllString(l, "N")
			l = regexp.MustCompile(`"[^"]*"`).ReplaceAllString(l, `"..."`)
			if len(l) > 160 {
				l = l[:160] + "..."
			}
			return l
		}
	}
	return "exit non-zero with no error printed"
}

// check compares state with the disk and plans once more.
func (t *trials) check(dir, kind string, fail func(string, ...any)) {
	objs, err := t.recorded(dir)
	if err != nil {
		fail("state does not load: %v", err)
		return
	}
	files := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fail("%v", err)
	}
	for _, e := range entries {
		files[filepath.Join("out", e.Name())] = true
	}
	paths := map[string]int{}
	values := 0
	for _, o := range objs {
		switch o.typ {
		case "tether_file":
			paths[o.path]++
		case "tether_value":
			values++
		}
	}
	want := t.o.resources
	if kind == "destroy" {
		want = 0
	}
	if len(paths) != want || values != want {
		fail("state records %d files and %d values, want %d of each", len(paths), values, want)
	}
	for p, n := range paths {
		if n > 1 {
			fail("%s is recorded %d times", p, n)
		}
		if !files[p] {
			fail("%s is in state but not on disk", p)
		}
	}
	var orphans []string
	for f := range files {
		if paths[f] == 0 {
			orphans = append(orphans, f)
		}
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		fail("%d files on disk are not in state, e.g. %s", len(orphans), orphans[0])
	}
	args := []string{"plan", "--detailed-exitcode"}
	if kind == "destroy" {
		args = append(args, "--destroy")
	}
	if out, err := t.tether(dir, args...); err != nil {
		fail("the next plan is not clean (%v): %s", err, lastLines(out, 6))
	}
}

type object struct{ typ, path string }

// recorded reads state through `tether state pull`, Terraform's format.
func (t *trials) recorded(dir string) ([]object, error) {
	out, err := t.tether(dir, "state", "pull")
	if err != nil {
		if strings.Contains(out, "no state in") {
			return nil, nil
		}
		return nil, fmt.Errorf("%v: %s", err, lastLines(out, 3))
	}
	var f struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					Path string `json:"path"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		return nil, fmt.Errorf("state pull wrote something unreadable: %v", err)
	}
	var objs []object
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			objs = append(objs, object{typ: r.Type, path: in.Attributes.Path})
		}
	}
	return objs, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func (t *trials) report(results []result, took time.Duration) string {
	for _, k := range t.o.kinds {
		if recoveryKinds[k] {
			return t.recoveryReport(results, took)
		}
	}
	var b strings.Builder
	store := "SQLite (.tether/state.db)"
	flags := ""
	if t.o.pg {
		store = "PostgreSQL (backend \"pg\")"
		flags = " -pg"
	}
	if t.o.s3 {
		store = "S3 (backend \"s3\", lock file and DynamoDB lock; gofakes3 and internal/dynamofake in the trials process)"
		flags = " -s3"
	}
	if t.o.gcs {
		store = "Google Cloud Storage (backend \"gcs\", its lock file; fake-gcs-server in the trials process)"
		flags = " -gcs"
	}
	fmt.Fprintf(&b, "## Crash trials: %s\n\n", store)
	fmt.Fprintf(&b, "Measured by `go run ./bench/trials%s -n %d -resources %d -parallelism %d -kinds %s -seed %d` on %s (%s/%s, %d cores): %d trials, %v in all.\n\n",
		flags, t.o.n, t.o.resources, t.o.parallelism, strings.Join(t.o.kinds, ","), t.o.seed, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), len(results), took.Round(time.Second))
	fmt.Fprintf(&b, "Each trial: %d `tether_value` (20-60 ms each) and %d `tether_file` depending on them, with `--parallelism %d`; SIGKILL at a uniformly random moment of the run (uninterrupted: ", t.o.resources, t.o.resources, t.o.parallelism)
	for i, k := range t.o.kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %v", k, t.durations[i].Round(10*time.Millisecond))
	}
	b.WriteString("); then the same command again (after `tether state unlock` when the dead run's lock was in the way), and the checks: state loads, every file in state is on disk, every file on disk is in state, no file recorded twice, `plan --detailed-exitcode` (with `--destroy` after a destroy) exits 0.\n\n")
	if t.o.pg {
		b.WriteString("A migrate trial applies with local state, adds the backend \"pg\" block and kills `init -force-copy` (-migrate-state), at a random moment or just after the copy committed or the backend was recorded, in turn; right after the kill, PostgreSQL must hold nothing or every object, and every object where `.tether/backend.json` already names it, and the local state (the source) every object wherever it is; the recovery is `init -force-copy` again. A restart trial stops PostgreSQL at once (`pg_ctl stop -m immediate`) and starts it again during `up`, instead of killing tether: the run must end by itself, without a panic, before the recovery `up`.\n\n")
	}
	b.WriteString("| interrupted during | trials | interrupted mid-run | finished before | lock broken to recover | objects recorded after (min-max) | failed |\n|---|---:|---:|---:|---:|---|---:|\n")
	for _, k := range t.o.kinds {
		var n, mid, fin, unl, failed int
		lo, hi := -1, 0
		for _, r := range results {
			if r.kind != k {
				continue
			}
			n++
			if r.finished {
				fin++
			} else {
				mid++
			}
			if r.unlocked {
				unl++
			}
			if len(r.problems) > 0 {
				failed++
			}
			if lo < 0 || r.recordedAtKill < lo {
				lo = r.recordedAtKill
			}
			hi = max(hi, r.recordedAtKill)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d-%d | %d |\n", k, n, mid, fin, unl, lo, hi, failed)
	}
	b.WriteString(t.kindNotes(results))
	var failures []string
	for i, r := range results {
		for _, p := range r.problems {
			failures = append(failures, fmt.Sprintf("- trial %d (%s, killed at %v): %s", i+1, r.kind, r.killedAt.Round(time.Millisecond), p))
		}
	}
	if len(failures) == 0 {
		b.WriteString("\nNo trial lost, orphaned or duplicated an object, and every next plan was clean.\n")
	} else {
		b.WriteString("\nFailures:\n\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}

// kindNotes says how the migrate and restart trials went.
func (t *trials) kindNotes(results []result) string {
	var b strings.Builder
	ended := map[string]int{}
	for _, r := range results {
		if r.kind == "restart" && !r.finished && r.ended != "" {
			ended[r.ended]++
		}
	}
	b.WriteString(migrateNotes(results))
	unreadable, first := 0, ""
	for _, r := range results {
		if r.unreadable != "" {
			if unreadable == 0 {
				first = lastLines(r.unreadable, 2)
			}
			unreadable++
		}
	}
	if unreadable > 0 {
		fmt.Fprintf(&b, "\n`state pull` right after the interruption failed in %d trials (counted as 0 recorded), the first with: %s\n", unreadable, first)
	}
	if len(ended) > 0 {
		var lines []string
		for e, n := range ended {
			lines = append(lines, fmt.Sprintf("- %d: `%s`", n, e))
		}
		sort.Strings(lines)
		b.WriteString("\nHow the up runs ended when PostgreSQL restarted under them:\n\n" + strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}
