package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/canary"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// comparing is the built-in provider with tether_file read as
// hashicorp/local reads local_file: a file whose content is not the
// recorded one is "gone" (local_file compares the file's SHA-1 with its
// id), so that a read given a reference's description instead of its
// value forgets the object.
type comparing struct{ provider.Provider }

func (p comparing) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	resp := p.Provider.ReadResource(ctx, req)
	if req.TypeName == "tether_file" && !resp.NewState.IsNull() && !resp.NewState.GetAttr("content").RawEquals(req.PriorState.GetAttr("content")) {
		resp.NewState = cty.NullVal(req.PriorState.Type())
	}
	return resp
}

// TestOldStateReferences destroys and refreshes an object whose argument is a
// reference, recorded by an earlier Tether: without the reference itself
// in its record (only its path, keyed hash and description), or without
// any record of it (the oldest format, the sensitive paths alone). No
// configuration says where the value is during a destroy, so the provider
// cannot be given it; read with the description, the file would be
// "gone", and destroy would forget the object and leave the file, which
// holds the secret, on disk. The object is deleted as recorded instead,
// with a warning that says why it was not refreshed; the same holds once
// the resource leaves the configuration; and nothing holds the secret.
func TestOldStateReferences(t *testing.T) {
	const secret = "CANARY-oldstate-3c9e71a4"
	t.Setenv("OLD_STATE_SECRET", secret)
	none := func(*testing.T, []byte) []byte { return []byte(`[]`) }
	for _, c := range []struct {
		name string
		old  func(t *testing.T, meta []byte) []byte
		run  string // destroy; remove: the resource leaves the configuration; refresh
	}{
		{"references without where they are", withoutRefs, "destroy"},
		{"no references recorded", none, "destroy"},
		{"resource removed, no references recorded", none, "remove"},
		{"refresh, no references recorded", none, "refresh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "f.txt")
			f := newFixture(t, fmt.Sprintf(`
resource "tether_file" "ref" {
  path    = %q
  content = env_reference("OLD_STATE_SECRET")
}
`, out))
			keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
			if err != nil {
				t.Fatal(err)
			}
			f.engine.Keys = keys
			p := comparing{tetherprovider.New()}
			f.engine.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider { return p })
			f.run(false)
			if b, err := os.ReadFile(out); err != nil || string(b) != secret {
				t.Fatalf("the file after up: %q, %v", b, err)
			}

			// What an earlier Tether recorded.
			snap, err := f.store.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			obj := snap.Objects["tether_file.ref"]
			if obj == nil || !bytes.Contains(obj.Sensitive, []byte(`"ref"`)) {
				t.Fatalf("the record has no reference to take away: %s", obj.Sensitive)
			}
			obj.Sensitive = c.old(t, obj.Sensitive)
			if err := f.store.Commit(context.Background(), state.Changes{Put: []*state.Object{obj}}); err != nil {
				t.Fatal(err)
			}

			if c.run == "remove" {
				writeFiles(t, f.dir, map[string]string{"main.tf": ""})
			}
			planned, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{Destroy: c.run == "destroy", RefreshOnly: c.run == "refresh"})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if _, d := f.engine.Apply(context.Background(), planned); d.HasErrors() {
				t.Fatal(d)
			}
			warned := false
			for _, d := range diags {
				warned = warned || strings.Contains(d.Summary, "recorded without its references")
			}
			if !warned {
				t.Errorf("no warning says why tether_file.ref was not refreshed: %v", diags)
			}
			after, err := f.store.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.run == "refresh" {
				// Kept, not forgotten; the next up records the
				// references, and the file holds the value.
				if after.Objects["tether_file.ref"] == nil {
					t.Fatal("refresh forgot tether_file.ref, whose file is still on disk")
				}
				f.run(false)
				again, err := f.store.Load(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if o := again.Objects["tether_file.ref"]; o == nil || !bytes.Contains(o.Sensitive, []byte(`"ref"`)) {
					t.Errorf("up did not record the references of tether_file.ref: %v", o)
				}
				if b, err := os.ReadFile(out); err != nil || string(b) != secret {
					t.Errorf("the file after up: %q, %v", b, err)
				}
			} else {
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("the file is still on disk after the destroy (%v)", err)
				}
				if len(after.Objects) != 0 {
					t.Errorf("state still holds %d objects", len(after.Objects))
				}
			}
			f.store.Close()
			leaks, err := canary.ScanDir(filepath.Join(f.dir, ".tether"), []string{secret})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range leaks {
				t.Error(l)
			}
		})
	}
}

// withoutRefs takes the references themselves out of an object's
// recorded meta, leaving their paths, hashes and descriptions: the format
// before they were kept.
func withoutRefs(t *testing.T, meta []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	list, _ := m["refs"].([]any)
	for _, r := range list {
		delete(r.(map[string]any), "ref")
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
