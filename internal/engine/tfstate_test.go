package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/tfstate"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// tfFile is state as terraform 1.11 wrote it for a tether_file set from a
// sensitive variable, a plain one, and a sensitive output.
const tfFile = `{
  "version": 4, "terraform_version": "1.11.4", "serial": 7, "lineage": "1ea800c0-7d5f-82cb-92c1-2e0fe97023a5",
  "outputs": {"so": {"value": "hunter2", "type": "string", "sensitive": true}, "o": {"value": "out/a.txt", "type": "string"}},
  "resources": [
    {"mode": "managed", "type": "tether_file", "name": "s", "provider": "provider[\"registry.terraform.io/tetherhq/tether\"]",
     "instances": [{"index_key": 0, "schema_version": 0,
       "attributes": {"content": "hunter2", "file_permission": "0644", "id": "out/s0.txt", "path": "out/s0.txt", "sha256": "f52f"},
       "sensitive_attributes": [[{"type": "get_attr", "value": "content"}]], "private": "eyJhIjoxfQ==", "dependencies": ["tether_file.a"]}]},
    {"mode": "managed", "type": "tether_file", "name": "a", "provider": "provider[\"registry.terraform.io/tetherhq/tether\"]",
     "instances": [{"status": "tainted", "schema_version": 0,
       "attributes": {"content": "a", "file_permission": "0644", "id": "out/a.txt", "path": "out/a.txt", "sha256": "ca97"},
       "sensitive_attributes": [], "create_before_destroy": true}]},
    {"mode": "data", "type": "tether_file", "name": "d", "provider": "provider[\"registry.terraform.io/tetherhq/tether\"]",
     "instances": [{"schema_version": 0, "attributes": {"path": "x", "content": "y", "id": "x"}, "sensitive_attributes": []}]}
  ],
  "check_results": [
    {"object_kind": "resource", "config_addr": "tether_file.s", "status": "pass", "objects": [{"object_addr": "tether_file.s[0]", "status": "pass"}]},
    {"object_kind": "check", "config_addr": "check.fails", "status": "fail", "objects": [{"object_addr": "check.fails", "status": "fail", "failure_messages": ["always", "content is hello"]}]},
    {"object_kind": "output", "config_addr": "module.m.output.y", "status": "unknown", "objects": null}
  ]
}`

func TestTerraformStateConversion(t *testing.T) {
	keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
	if err != nil {
		t.Fatal(err)
	}
	providers := provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })
	f, err := tfstate.Read(strings.NewReader(tfFile))
	if err != nil {
		t.Fatal(err)
	}
	a, err := FromTerraform(keys, providers, f)
	if err != nil {
		t.Fatal(err)
	}
	ch := a.Changes
	if ch.Lineage != f.Lineage || ch.Serial != 7 || len(ch.Put) != 3 || len(ch.PutOutputs) != 2 {
		t.Fatalf("adopted %+v", a)
	}
	byAddr := map[string]*state.Object{}
	for _, o := range ch.Put {
		byAddr[o.Address] = o
	}
	s, plain, data := byAddr["tether_file.s[0]"], byAddr["tether_file.a"], byAddr["data.tether_file.d"]
	if s == nil || plain == nil || data == nil {
		t.Fatalf("adopted addresses: %v", byAddr)
	}
	if data.Mode != state.Data || plain.Mode != state.Managed || len(data.Dependencies) != 0 {
		t.Errorf("data source result adopted as %+v", data)
	}
	if !secrets.IsSealed(s.Value) || bytes.Contains(s.Value, []byte("hunter2")) {
		t.Errorf("the object with a sensitive attribute is not sealed: %s", s.Value)
	}
	if secrets.IsSealed(plain.Value) || plain.Status != state.Tainted || !plain.CreateBeforeDestroy {
		t.Errorf("plain object adopted as %+v", plain)
	}
	// Private data is sealed: nothing says what the provider keeps there.
	if priv, err := open(keys, s.Private); !secrets.IsSealed(s.Private) || err != nil || string(priv) != `{"a":1}` || len(s.Dependencies) != 1 || s.Dependencies[0] != "tether_file.a" {
		t.Errorf("private data not sealed, or it or the dependencies lost: %q (%q, %v) %v", s.Private, priv, err, s.Dependencies)
	}
	for _, o := range ch.PutOutputs {
		if o.Name == "so" && (!o.Sensitive || !secrets.IsSealed(o.Value)) {
			t.Errorf("sensitive output not sealed: %+v", o)
		}
	}

	// Back to Terraform's format, with a checksum Tether marked because
	// it was computed from the secret: Terraform would not mark it, so
	// it is left out.
	withDigest, err := encodeMeta(objectMeta{Sensitive: []cty.Path{cty.GetAttrPath("content"), cty.GetAttrPath("sha256")}})
	if err != nil {
		t.Fatal(err)
	}
	s.Sensitive = withDigest
	snap := &state.Snapshot{Objects: map[string]*state.Object{}, Outputs: map[string]*state.Output{}, Lineage: ch.Lineage, Serial: ch.Serial, Checks: ch.Checks}
	for _, o := range ch.Put {
		snap.Objects[o.Address] = o
	}
	for _, o := range ch.PutOutputs {
		snap.Outputs[o.Name] = o
	}
	back, withheld, err := ToTerraform(keys, providers, snap)
	if err != nil || len(withheld) > 0 {
		t.Fatal(err, withheld)
	}
	var out bytes.Buffer
	if err := tfstate.Write(&out, back); err != nil {
		t.Fatal(err)
	}
	// In Terraform's order: data sources first, then by type and name.
	if r := back.Resources[0]; r.Mode != "data" || r.Name != "d" || len(r.Instances) != 1 || r.Instances[0].Dependencies != nil {
		t.Errorf("exported data source result: %+v", r)
	}
	sens := back.Resources[2].Instances[0].SensitiveAttributes
	if back.Resources[2].Name != "s" || string(sens) != `[[{"type":"get_attr","value":"content"}]]` {
		t.Errorf("exported sensitive_attributes of %s: %s, want content alone", back.Resources[2].Name, sens)
	}
	// The check results come back as they were, in order of address.
	var results bytes.Buffer
	if err := json.Indent(&results, []byte(`[
    {"object_kind": "check", "config_addr": "check.fails", "status": "fail", "objects": [{"object_addr": "check.fails", "status": "fail", "failure_messages": ["always", "content is hello"]}]},
    {"object_kind": "output", "config_addr": "module.m.output.y", "status": "unknown", "objects": null},
    {"object_kind": "resource", "config_addr": "tether_file.s", "status": "pass", "objects": [{"object_addr": "tether_file.s[0]", "status": "pass"}]}
  ]`), "  ", "  "); err != nil {
		t.Fatal(err)
	}
	if want := "\"check_results\": " + results.String() + "\n}\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("exported state does not end with\n%s\n%s", want, out.String())
	}
	for _, want := range []string{`"mode": "data"`, `"content": "hunter2"`, `"lineage": "1ea800c0-7d5f-82cb-92c1-2e0fe97023a5"`, `"serial": 7`, `"status": "tainted"`, `"create_before_destroy": true`, `"index_key": 0`, `"private": "eyJhIjoxfQ=="`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("exported state lacks %s:\n%s", want, out.String())
		}
	}
}

// TestPullWithholdsReferencedPrivate: private data holding a value
// resolved from a reference is never written out; it is left out, not
// rewritten into bytes the provider cannot decode, and the object named.
// So is one recorded by an earlier version, which kept the rewritten
// bytes.
func TestPullWithholdsReferencedPrivate(t *testing.T) {
	keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
	if err != nil {
		t.Fatal(err)
	}
	providers := provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })
	marked, err := encodeMeta(objectMeta{PrivateRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, meta := range [][]byte{marked, []byte(`{"shown_private":"eyJrZXkiOiIocmVmZXJlbmNlIGVudiBLKSJ9"}`)} {
		obj := &state.Object{
			Address: "tether_file.a", Mode: state.Managed, Type: "tether_file", Provider: `provider["registry.terraform.io/tetherhq/tether"]`,
			Value:     []byte(`{"content":"a","file_permission":"0644","id":"out/a.txt","path":"out/a.txt","sha256":"ca97"}`),
			Private:   keys.Seal([]byte(`{"key":"CANARY-priv-3f9e"}`)),
			Sensitive: meta,
		}
		snap := &state.Snapshot{Objects: map[string]*state.Object{obj.Address: obj}, Outputs: map[string]*state.Output{}, Lineage: "l", Serial: 1}
		f, withheld, err := ToTerraform(keys, providers, snap)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := tfstate.Write(&out, f); err != nil {
			t.Fatal(err)
		}
		if len(withheld) != 1 || withheld[0] != "tether_file.a" || f.Resources[0].Instances[0].Private != nil || strings.Contains(out.String(), "private") {
			t.Errorf("meta %s: withheld %v, written:\n%s", meta, withheld, out.String())
		}
	}
}

// TestPlanSaysWhyItStopped: a run stopped by a signal before it read
// state says which signal, not only "context canceled".
func TestPlanSaysWhyItStopped(t *testing.T) {
	store, err := state.OpenSQLite(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e := &Engine{Store: store, Providers: provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("terminated signal received"))
	_, diags := e.Plan(ctx, &config.Config{}, PlanOptions{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "context canceled (terminated signal received)") {
		t.Errorf("got %v, want the signal named", diags)
	}
}
