package pgtest_test

import (
	"errors"
	"net"
	"strconv"
	"testing"

	"github.com/tetherhq/tether/internal/pgtest"
)

func TestStartStop(t *testing.T) {
	s, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("server not listening on %s: %v", addr, err)
	}
	c.Close()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("server still listening on %s after Stop", addr)
	}
}
