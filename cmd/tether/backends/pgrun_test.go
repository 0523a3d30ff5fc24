package backends

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/pgtest"
)

// pgRunner runs the built tether command against one PostgreSQL schema.
type pgRunner struct {
	t     *testing.T
	tools e2e.DiffTools
	env   []string
}

func newPGRunner(t *testing.T, connStr, schema string) *pgRunner {
	t.Helper()
	tools := e2e.BuildDiffTools(t)
	env := append(e2e.DiffEnv(tools), "PG_CONN_STR="+connStr, "PG_SCHEMA_NAME="+schema, "XDG_CONFIG_HOME="+t.TempDir())
	return &pgRunner{t: t, tools: tools, env: env}
}

func (r *pgRunner) command(ctx context.Context, dir string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, r.tools.Tether, args...)
	cmd.Dir, cmd.Env = dir, r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// run runs tether and returns its exit code and output.
func (r *pgRunner) run(dir string, args ...string) (int, string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), e2e.DiffCommandTimeout)
	defer cancel()
	cmd, stdout, stderr := r.command(ctx, dir, args...)
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		r.t.Fatalf("tether %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func (r *pgRunner) must(dir string, args ...string) string {
	code, out, errOut := r.run(dir, args...)
	if code != 0 {
		r.t.Fatalf("tether %s exited %d:\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func postgresOrSkip(t *testing.T) *pgtest.Server {
	t.Helper()
	srv, err := e2e.PostgresServer()
	if errors.Is(err, pgtest.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

const raceConfig = `terraform {
  backend "pg" {}
}

variable "run" {
  type = number
}

resource "tether_value" "slow" {
  input    = var.run
  delay_ms = 700
}
`

// TestPGTwoRunnersRace starts two up on the same workspace from two
// folders at the same moment, many times: each time exactly one proceeds,
// and the other fails at once naming the winner's operation and pid.
func TestPGTwoRunnersRace(t *testing.T) {
	t.Parallel()
	srv := postgresOrSkip(t)
	r := newPGRunner(t, srv.ConnString(""), e2e.FreshSchema("race"))
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "main.tf"), []byte(raceConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		r.must(d, "init")
	}
	trials := 50
	if testing.Short() {
		trials = 5
	}
	holder := regexp.MustCompile(`is locked by operation "up" \(pid (\d+) on host `)
	for trial := range trials {
		ctx, cancel := context.WithTimeout(context.Background(), e2e.DiffCommandTimeout)
		var cmds [2]*exec.Cmd
		var errs [2]*bytes.Buffer
		for i, d := range dirs {
			cmds[i], _, errs[i] = r.command(ctx, d, "up", "--yes", "-var", "run="+strconv.Itoa(trial))
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range cmds {
			c.Wait()
		}
		cancel()
		codes := [2]int{cmds[0].ProcessState.ExitCode(), cmds[1].ProcessState.ExitCode()}
		win, lose := 0, 1
		if codes[0] != 0 {
			win, lose = 1, 0
		}
		if codes[win] != 0 || codes[lose] != 1 {
			t.Fatalf("trial %d: exit codes %v, want one 0 and one 1\nfirst:\n%s\nsecond:\n%s", trial, codes, errs[0], errs[1])
		}
		m := holder.FindStringSubmatch(errs[lose].String())
		if m == nil {
			t.Fatalf("trial %d: the refused run does not name the holder:\n%s", trial, errs[lose])
		}
		if pid, _ := strconv.Atoi(m[1]); pid != cmds[win].Process.Pid {
			t.Fatalf("trial %d: the refused run names pid %d, but the winner was pid %d", trial, pid, cmds[win].Process.Pid)
		}
	}
}

const downConfig = `terraform {
  backend "pg" {}
}

resource "tether_value" "chain" {
  count    = 12
  input    = count.index
  delay_ms = 400
}
`

// TestPGServerDownMidRun stops the server while up is applying: up fails
// saying so, what it committed before stays, and once the server is back
// the next up converges and the plan after it is clean.
func TestPGServerDownMidRun(t *testing.T) {
	t.Parallel()
	postgresOrSkip(t) // skips without PostgreSQL
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	r := newPGRunner(t, srv.ConnString(""), "down")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(downConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	r.must(dir, "init")
	ctx, cancel := context.WithTimeout(context.Background(), e2e.DiffCommandTimeout)
	defer cancel()
	cmd, _, stderr := r.command(ctx, dir, "up", "--yes", "--parallelism", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for some objects to be recorded, then stop the server.
	deadline := time.Now().Add(time.Minute)
	for {
		if n := countObjects(t, srv.ConnString(""), "down"); n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("up recorded nothing within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := srv.Halt(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("up with the server stopped under it exited %d, want 1:\n%s", code, stderr)
	}
	// Details wrap at the terminal's width: compare the words.
	if !strings.Contains(strings.Join(strings.Fields(stderr.String()), " "), "lost the connection that held the state lock") {
		t.Errorf("up does not say it lost its connection:\n%s", stderr)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	r.must(dir, "up", "--yes")
	if code, out, errOut := r.run(dir, "plan", "--detailed-exitcode"); code != 0 {
		t.Fatalf("plan after recovery exited %d:\n%s%s", code, out, errOut)
	}
	if n := countObjects(t, srv.ConnString(""), "down"); n != 12 {
		t.Errorf("%d objects recorded after recovery, want 12", n)
	}
}

func countObjects(t *testing.T, connStr, schema string) int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, connStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s.tether_objects`, pgx.Identifier{schema}.Sanitize())).Scan(&n); err != nil {
		return 0 // not created yet
	}
	return n
}
