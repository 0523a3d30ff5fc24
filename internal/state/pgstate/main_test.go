package pgstate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/tetherhq/tether/internal/pgtest"
	"github.com/tetherhq/tether/internal/state/pgstate"
)

// server is the cluster the tests share; each test uses its own schema.
var (
	server   *pgtest.Server
	startErr error
)

func TestMain(m *testing.M) {
	server, startErr = pgtest.Start()
	code := m.Run()
	if server != nil {
		if err := server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping PostgreSQL:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var schemas atomic.Int64

// config returns a fresh schema on the shared server, skipping the test
// where PostgreSQL is not installed.
func config(t *testing.T) pgstate.Config {
	t.Helper()
	if errors.Is(startErr, pgtest.ErrNotFound) {
		t.Skip(startErr)
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	return pgstate.Config{ConnStr: server.ConnString(""), Schema: fmt.Sprintf("test_%s_%d", sanitize(t.Name()), schemas.Add(1))}
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func connect(t *testing.T, cfg pgstate.Config) *pgstate.Backend {
	t.Helper()
	b, err := pgstate.Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func open(t *testing.T, b *pgstate.Backend, ws string) *pgstate.Store {
	t.Helper()
	s, err := b.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
