package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/state"
)

// TetherLockID is the ID of the lock the test takes as Tether: a GUID,
// as an Azure blob lease needs.
const TetherLockID = "7e7e7e7e-0000-4000-8000-000000007e7e"

func LockStore(t *testing.T, st state.Store) state.Unlocker {
	t.Helper()
	u, err := st.Lock(context.Background(), state.LockInfo{ID: TetherLockID, Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func EnvLookup(env []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}
