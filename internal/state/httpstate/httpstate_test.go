package httpstate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/httpstatefake"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

func connect(t *testing.T, srv *httpstatefake.Server, extra ...string) *Backend {
	t.Helper()
	s := map[string]string{"address": srv.URL + "/state", "lock_address": srv.URL + "/lock", "unlock_address": srv.URL + "/lock",
		"username": "u", "password": "p", "retry_max": "0"}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i]] = extra[i+1]
	}
	cfg, err := FromSettings(s, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(context.Background(), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func start(t *testing.T) *httpstatefake.Server {
	srv := httpstatefake.Start("u", "p")
	t.Cleanup(srv.Close)
	return srv
}

func obj(addr string) *state.Object {
	return &state.Object{Address: addr, Mode: state.Managed, Type: "tether_file", Provider: "p", Value: []byte(`{}`), Status: state.Ready}
}

func openLocked(t *testing.T, b *Backend, ws, op string) (state.Store, state.Unlocker) {
	t.Helper()
	st, err := b.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	u, err := st.Lock(context.Background(), state.LockInfo{Operation: op})
	if err != nil {
		t.Fatal(err)
	}
	return st, u
}

// Every commit is on the server when it returns, with the lock's ID; the
// lock is Terraform's record, and a second locker is refused naming it.
func TestCommitAndLock(t *testing.T) {
	srv := start(t)
	b := connect(t, srv)
	ctx := context.Background()
	st, u := openLocked(t, b, DefaultWorkspace, "up")
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	if doc := srv.State(""); !strings.Contains(string(doc), `"tether_file.a"`) {
		t.Fatalf("server holds %s", doc)
	}
	if rec := srv.Lock(""); !strings.Contains(string(rec), `"Operation":"up"`) {
		t.Errorf("lock record %s", rec)
	}
	other, err := connect(t, srv).Open(ctx, DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Lock(ctx, state.LockInfo{Operation: "plan"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "up" {
		t.Fatalf("second lock: %v", err)
	}
	// Broken and taken by another: the next commit writes nothing.
	if _, err := other.ForceUnlock(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	err = st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.b")}})
	if !errors.As(err, new(*state.LockLostError)) || strings.Contains(string(srv.State("")), "tether_file.b") {
		t.Errorf("commit after the lock was broken: %v", err)
	}
	u.Unlock()
}

// Terraform's lock (its record, as terraform sends it) stops Tether,
// naming it.
func TestTerraformHoldsLock(t *testing.T) {
	srv := start(t)
	b := connect(t, srv)
	ctx := context.Background()
	st, err := b.Open(ctx, DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := `{"ID":"tf-1","Operation":"OperationTypeApply","Info":"","Who":"ci@runner","Version":"1.11.4","Created":"2026-12-07T12:00:00Z","Path":""}`
	if _, err := b.lock(ctx, DefaultWorkspace, []byte(body)); err != nil {
		t.Fatal(err)
	}
	_, err = st.Lock(ctx, state.LockInfo{Operation: "up"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "terraform OperationTypeApply" || le.Holder.ID != "tf-1" {
		t.Fatalf("lock held by terraform: %v", err)
	}
}

// Workspaces beyond Terraform's: workspace=NAME on each address, listed
// in the default document.
func TestWorkspaces(t *testing.T) {
	srv := start(t)
	b := connect(t, srv)
	ctx := context.Background()
	if err := b.NewWorkspace(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	if err := b.NewWorkspace(ctx, "staging"); !errors.Is(err, ErrWorkspaceExists) {
		t.Errorf("again: %v", err)
	}
	names, err := b.Workspaces(ctx)
	if err != nil || fmt.Sprint(names) != "[default staging]" {
		t.Fatalf("workspaces %v %v", names, err)
	}
	st, u := openLocked(t, b, "staging", "up")
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.s")}}); err != nil {
		t.Fatal(err)
	}
	u.Unlock()
	if !strings.Contains(string(srv.State("staging")), "tether_file.s") || strings.Contains(string(srv.State("")), "tether_file.s") {
		t.Errorf("staging's commit is not at workspace=staging alone")
	}
	// The default workspace's commits keep the list.
	def, u2 := openLocked(t, b, DefaultWorkspace, "up")
	if err := def.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.d")}}); err != nil {
		t.Fatal(err)
	}
	u2.Unlock()
	if names, _ := b.Workspaces(ctx); fmt.Sprint(names) != "[default staging]" {
		t.Errorf("after a default commit: %v", names)
	}
	if err := b.DeleteWorkspace(ctx, "staging", true); err != nil {
		t.Fatal(err)
	}
	if names, _ := b.Workspaces(ctx); fmt.Sprint(names) != "[default]" || srv.State("staging") != nil {
		t.Errorf("after delete: %v", names)
	}
}

// Terraform's state at the address is refused as Tether's; init's
// takeover copies it to a file before writing over it.
func TestTerraformStateAtAddress(t *testing.T) {
	srv := start(t)
	b := connect(t, srv)
	ctx := context.Background()
	tf := `{"version":4,"serial":2,"lineage":"tf","outputs":{"o":{"value":"x","type":"string"}},"resources":[]}`
	srv.SetState("", []byte(tf))
	st, err := b.Open(ctx, DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Load(ctx); !errors.Is(err, statedoc.ErrTerraformHere) {
		t.Fatalf("Load over Terraform's state: %v", err)
	}
	pending, err := b.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := b.TerraformState(ctx, DefaultWorkspace)
	if err != nil || ts == nil {
		t.Fatalf("TerraformState: %v %v", ts, err)
	}
	u, err := st.Lock(ctx, state.LockInfo{Operation: "init"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}, Lineage: "tf", Serial: 2}); err != nil {
		t.Fatal(err)
	}
	u.Unlock()
	if again, err := connect(t, srv).ID(ctx); err != nil || again != pending {
		t.Errorf("the id handed out during the takeover (%s) is not the one recorded (%s, %v)", pending, again, err)
	}
	aside, _ := ts.SetAside(ctx)
	if got, err := os.ReadFile(aside); err != nil || string(got) != tf {
		t.Errorf("copy aside %s: %q %v", aside, got, err)
	}
	if filepath.Base(aside) != "terraform-adopted-default.tfstate" {
		t.Errorf("aside at %s", aside)
	}
}

// Without lock_address there is no lock, and Tether does not run.
func TestNoLockAddress(t *testing.T) {
	srv := start(t)
	cfg, err := FromSettings(map[string]string{"address": srv.URL + "/state", "username": "u", "password": "p"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(context.Background(), cfg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := b.Open(context.Background(), DefaultWorkspace)
	defer st.Close()
	if _, err := st.Lock(context.Background(), state.LockInfo{Operation: "up"}); err == nil || !strings.Contains(err.Error(), "no lock_address") {
		t.Errorf("lock without lock_address: %v", err)
	}
}

// The arguments come from TF_HTTP_ variables when the block leaves them out.
func TestEnvironment(t *testing.T) {
	env := map[string]string{"TF_HTTP_ADDRESS": "https://example.test/state", "TF_HTTP_LOCK_METHOD": "PUT", "TF_HTTP_RETRY_MAX": "5"}
	cfg, err := FromSettings(map[string]string{}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Address.Host != "example.test" || cfg.LockMethod != "PUT" || cfg.RetryMax != 5 || cfg.UnlockMethod != "UNLOCK" || cfg.UpdateMethod != "POST" {
		t.Errorf("config %+v", cfg)
	}
	if _, err := FromSettings(map[string]string{}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), `"address"`) {
		t.Errorf("no address: %v", err)
	}
}
