package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetherhq/tether/internal/azurite"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/pgtest"
)

// The PostgreSQL scenarios share one throwaway cluster, started on first
// use and stopped when the tests end; each scenario has its own schema.
var sharedPG struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

func PostgresServer() (*pgtest.Server, error) {
	sharedPG.once.Do(func() { sharedPG.srv, sharedPG.err = pgtest.Start() })
	return sharedPG.srv, sharedPG.err
}

// schemaRuns numbers the schemas handed out by FreshSchema.
var schemaRuns atomic.Int64

// FreshSchema returns a schema name no other test run in this process has
// used: the cluster outlives one run of a test (go test -count=2 runs each
// twice against it), and a run finding the state of the one before in its
// schema fails for that reason alone.
func FreshSchema(name string) string {
	return fmt.Sprintf("%s_%d", name, schemaRuns.Add(1))
}

// stopPostgres wraps the tests' run, stopping the shared cluster after it.
type stopPostgres struct{ m *testing.M }

func (s stopPostgres) Run() int {
	code := s.m.Run()
	if sharedPG.srv != nil {
		if err := sharedPG.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping PostgreSQL:", err)
			code = 1
		}
	}
	return code
}

// scriptCondition adds [postgres] to the scenarios' conditions: true when
// the throwaway cluster runs, false only where PostgreSQL is not installed.
func scriptCondition(cond string) (bool, error) {
	if cond == "aws" {
		return awsCondition(), nil
	}
	if cond == "azurite" {
		return azurite.Installed(), nil
	}
	if cond != "postgres" {
		return providersCondition(cond)
	}
	_, err := PostgresServer()
	if errors.Is(err, pgtest.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// setupPostgres gives a scenario named pg_* the shared cluster: PG_CONN_STR
// and PG_SCHEMA_NAME (Terraform's variables, so a backend "pg" {} block
// needs nothing more) choose a schema of its own, tether_NAME_N
// (FreshSchema); PGURL is the same
// connection string, and PGURL_BADPW one with a wrong password.
func setupPostgres(env *testscript.Env) error {
	name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
	if !strings.HasPrefix(name, "pg_") {
		return nil
	}
	srv, err := PostgresServer()
	if errors.Is(err, pgtest.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	url := srv.ConnString("")
	env.Setenv("PG_CONN_STR", url)
	env.Setenv("PG_SCHEMA_NAME", FreshSchema("tether_"+name)) // pg_* names are reserved
	env.Setenv("PGURL", url)
	env.Setenv("PGURL_BADPW", strings.Replace(url, pgtest.Password, "not-the-password", 1))
	return nil
}

// pgExec runs SQL against the scenario's database: pgexec 'SQL'.
func pgExec(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: pgexec SQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, ts.Getenv("PGURL"))
	ts.Check(err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, args[0])
	if neg {
		if err == nil {
			ts.Fatalf("pgexec succeeded")
		}
		return
	}
	ts.Check(err)
}
