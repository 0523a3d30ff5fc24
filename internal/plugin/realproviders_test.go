package plugin

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/internal/providertest"
)

// The real providers internal/providertest builds, driven through the
// plugin client by the same harness as the built-in provider: the engine's
// merge, private bytes, and the promises the engine checks (which
// hashicorp/local, written with the legacy SDK, is let off). time and local
// speak protocol 5; the test provider, written with the plugin framework,
// speaks 6.

// realHarness starts the provider at path and returns a harness for it,
// configured with attrs, after checking the protocol version it speaks.
func realHarness(t *testing.T, path string, version int, attrs map[string]cty.Value) *providercheck.Harness {
	t.Helper()
	c := startClient(t, path)
	if c.protocolVersion != version {
		t.Fatalf("negotiated protocol %d, want %d", c.protocolVersion, version)
	}
	return providercheck.New(t, c, attrs)
}

func TestLocalProvider(t *testing.T) {
	t.Parallel()
	h := realHarness(t, providertest.Local(t).Executable, 5, nil)
	path := filepath.Join(t.TempDir(), "out", "a.txt")
	attrs := map[string]cty.Value{
		"filename":        cty.StringVal(path),
		"content":         cty.StringVal("one\n"),
		"file_permission": cty.StringVal("0640"),
	}

	// Create, with every digest known once written.
	o := h.Up("local_file", nil, attrs)
	providercheck.CheckFile(t, path, "one\n", 0o640)
	sum1 := sha1.Sum([]byte("one\n"))
	sum256 := sha256.Sum256([]byte("one\n"))
	if got := providercheck.String(t, o.State, "id"); got != hex.EncodeToString(sum1[:]) {
		t.Errorf("id %q, want the content's sha1", got)
	}
	if got := providercheck.String(t, o.State, "content_sha256"); got != hex.EncodeToString(sum256[:]) {
		t.Errorf("content_sha256 %q", got)
	}

	// Nothing changed: the same object, and a plan that changes nothing.
	same, diags := h.Refresh(o)
	providercheck.NoErrors(t, "read", diags)
	if same == nil || !same.State.RawEquals(o.State) {
		t.Fatalf("refresh of an untouched file: %#v, want %#v", same, o.State)
	}
	pr := h.Plan("local_file", o, attrs)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 || !pr.PlannedState.RawEquals(o.State) {
		t.Errorf("an unchanged file plans %#v (replace %#v)", pr.PlannedState, pr.RequiresReplace)
	}

	// New content replaces the file: destroy, then create.
	attrs["content"] = cty.StringVal("two\n")
	pr = h.Plan("local_file", o, attrs)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !providercheck.HasReplace(pr.RequiresReplace, "content") {
		t.Fatalf("new content does not replace the file: %#v", pr.RequiresReplace)
	}
	h.Down(o)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file outlived its destroy: %v", err)
	}
	o = h.Up("local_file", nil, attrs)
	providercheck.CheckFile(t, path, "two\n", 0o640)

	// Read back through the data source.
	rd := h.ReadData("local_file", map[string]cty.Value{"filename": cty.StringVal(path)})
	providercheck.NoErrors(t, "read data", rd.Diagnostics)
	if got := providercheck.String(t, rd.State, "content"); got != "two\n" {
		t.Errorf("data source content %q", got)
	}

	// Deleted by hand: the object is gone.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	gone, diags := h.Refresh(o)
	providercheck.NoErrors(t, "read", diags)
	if gone != nil {
		t.Errorf("refresh of a deleted file: %#v", gone.State)
	}
	rd = h.ReadData("local_file", map[string]cty.Value{"filename": cty.StringVal(path)})
	if !rd.Diagnostics.HasErrors() {
		t.Errorf("reading a missing file succeeded: %#v", rd.State)
	}
}

func TestTimeProvider(t *testing.T) {
	t.Parallel()
	h := realHarness(t, providertest.Time(t).Executable, 5, nil)
	const stamp = "2020-02-12T06:36:13Z"

	// A fixed time, and every part of it known after apply.
	o := h.Up("time_static", nil, map[string]cty.Value{"rfc3339": cty.StringVal(stamp)})
	for name, want := range map[string]cty.Value{
		"id": cty.StringVal(stamp), "year": cty.NumberIntVal(2020), "month": cty.NumberIntVal(2),
		"day": cty.NumberIntVal(12), "unix": cty.NumberIntVal(1581489373),
	} {
		if got := o.State.GetAttr(name); !got.RawEquals(want) {
			t.Errorf("time_static.%s = %#v, want %#v", name, got, want)
		}
	}
	same, diags := h.Refresh(o)
	providercheck.NoErrors(t, "read", diags)
	if same == nil || !same.State.RawEquals(o.State) {
		t.Fatalf("refresh: %#v, want %#v", same, o.State)
	}

	// Triggers replace it.
	pr := h.Plan("time_static", o, map[string]cty.Value{
		"rfc3339":  cty.StringVal(stamp),
		"triggers": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
	})
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !providercheck.HasReplace(pr.RequiresReplace, "triggers") {
		t.Errorf("new triggers do not replace time_static: %#v", pr.RequiresReplace)
	}

	// The time now, chosen at apply: unknown in the plan.
	pr = h.Plan("time_static", nil, nil)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if pr.PlannedState.GetAttr("rfc3339").IsKnown() {
		t.Errorf("the current time is known at plan: %#v", pr.PlannedState.GetAttr("rfc3339"))
	}
	now := h.Up("time_static", nil, nil)
	providercheck.String(t, now.State, "rfc3339")
	h.Down(now)

	// Import by the time, and a state recorded as JSON upgrades to itself.
	ir := h.Import("time_static", stamp)
	providercheck.NoErrors(t, "import", ir.Diagnostics)
	if len(ir.Imported) != 1 || !ir.Imported[0].State.GetAttr("unix").RawEquals(cty.NumberIntVal(1581489373)) {
		t.Fatalf("imported %#v", ir.Imported)
	}
	raw, err := ctyjson.Marshal(o.State, h.Resource("time_static").Block.ImpliedType())
	if err != nil {
		t.Fatal(err)
	}
	up := h.Upgrade("time_static", 0, raw)
	providercheck.NoErrors(t, "upgrade", up.Diagnostics)
	if !up.UpgradedState.RawEquals(o.State) {
		t.Errorf("upgraded %#v, want %#v", up.UpgradedState, o.State)
	}
	if ir := h.Import("time_static", "yesterday"); !ir.Diagnostics.HasErrors() {
		t.Errorf("importing %q succeeded: %#v", "yesterday", ir.Imported)
	}
	h.Down(o)

	// An offset updates in place: the base, which the configuration
	// leaves to the provider after create, is kept by the engine's merge.
	off := h.Up("time_offset", nil, map[string]cty.Value{"base_rfc3339": cty.StringVal(stamp), "offset_days": cty.NumberIntVal(1)})
	if got := providercheck.String(t, off.State, "rfc3339"); got != "2020-02-13T06:36:13Z" {
		t.Errorf("offset of a day: %s", got)
	}
	attrs := map[string]cty.Value{"base_rfc3339": cty.StringVal(stamp), "offset_days": cty.NumberIntVal(2)}
	pr = h.Plan("time_offset", off, attrs)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 {
		t.Errorf("a new offset replaces time_offset: %#v", pr.RequiresReplace)
	}
	off = h.Up("time_offset", off, attrs)
	if got := providercheck.String(t, off.State, "rfc3339"); got != "2020-02-14T06:36:13Z" {
		t.Errorf("offset of two days: %s", got)
	}
	h.Down(off)

	// A bad time is refused at validation, about its attribute.
	diags = h.Provider.ValidateResourceConfig("time_static", h.Config("time_static", map[string]cty.Value{"rfc3339": cty.StringVal("yesterday")}))
	providercheck.WantOnlyError(t, diags, cty.GetAttrPath("rfc3339"), "RFC3339")
}

func TestTestingProvider(t *testing.T) {
	t.Parallel()
	p, err := providertest.BuildTestProvider(1)
	if errors.Is(err, providertest.ErrNoProxy) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	h := realHarness(t, p.Executable, 6, map[string]cty.Value{"prefix": cty.StringVal("p-")})

	// 64-bit integers stay exact, and a computed one the provider keeps
	// (UseStateForUnknown) survives an update through the engine's merge.
	const serial = 7227701560655103598
	thing := h.Up("testing_thing", nil, map[string]cty.Value{"name": cty.StringVal("a")})
	if got := providercheck.String(t, thing.State, "result"); got != "p-a" {
		t.Errorf("result %q, want the prefix and the name", got)
	}
	if got := thing.State.GetAttr("serial"); !got.RawEquals(cty.NumberIntVal(serial)) {
		t.Errorf("serial %#v, want %d exactly", got, int64(serial))
	}
	big := map[string]cty.Value{"name": cty.StringVal("a"), "big": cty.NumberIntVal(9007199254740993)}
	if pr := h.Plan("testing_thing", thing, big); len(pr.RequiresReplace) != 0 {
		t.Errorf("a new big replaces testing_thing: %#v", pr.RequiresReplace)
	}
	thing = h.Up("testing_thing", thing, big)
	if got := thing.State.GetAttr("big"); !got.RawEquals(cty.NumberIntVal(9007199254740993)) {
		t.Errorf("big %#v", got)
	}
	if got := thing.State.GetAttr("serial"); !got.RawEquals(cty.NumberIntVal(serial)) {
		t.Errorf("serial after an update %#v", got)
	}
	if pr := h.Plan("testing_thing", thing, map[string]cty.Value{"name": cty.StringVal("b")}); !providercheck.HasReplace(pr.RequiresReplace, "name") {
		t.Errorf("a new name does not replace testing_thing: %#v", pr.RequiresReplace)
	}
	h.Down(thing)

	// Nested attributes: a computed value inside a list's object is kept
	// by the merge when nothing changes, and computed again when its
	// object does.
	rules := func(port int64) map[string]cty.Value {
		return map[string]cty.Value{
			"settings": cty.ObjectVal(map[string]cty.Value{
				"mode": cty.StringVal("fast"), "level": cty.NullVal(cty.Number), "labels": cty.NullVal(cty.Map(cty.String)),
			}),
			"rules": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
				"name": cty.StringVal("web"), "port": cty.NumberIntVal(port), "key": cty.NullVal(cty.String),
			})}),
		}
	}
	key := func(o *providercheck.Object) cty.Value {
		return o.State.GetAttr("rules").Index(cty.NumberIntVal(0)).GetAttr("key")
	}
	nested := h.Up("testing_nested", nil, rules(443))
	if got := key(nested); !got.RawEquals(cty.StringVal("p-web:443")) {
		t.Errorf("rules[0].key %#v", got)
	}
	if got := providercheck.String(t, nested.State, "summary"); got != "mode fast, 1 rules, 0 by name" {
		t.Errorf("summary %q", got)
	}
	if pr := h.Plan("testing_nested", nested, rules(443)); !pr.PlannedState.RawEquals(nested.State) {
		t.Errorf("an unchanged testing_nested plans %#v, want %#v", pr.PlannedState, nested.State)
	}
	nested = h.Up("testing_nested", nested, rules(80))
	if got := key(nested); !got.RawEquals(cty.StringVal("p-web:80")) {
		t.Errorf("rules[0].key after an update %#v", got)
	}
	h.Down(nested)

	// A remote object: drift, repair in place, replacement, and deletion
	// outside Terraform.
	path := filepath.Join(t.TempDir(), "f.txt")
	attrs := map[string]cty.Value{"path": cty.StringVal(path), "content": cty.StringVal("one")}
	f := h.Up("testing_file", nil, attrs)
	providercheck.CheckFile(t, path, "one", 0o644)
	if err := os.WriteFile(path, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	drifted, diags := h.Refresh(f)
	providercheck.NoErrors(t, "read", diags)
	if got := providercheck.String(t, drifted.State, "content"); got != "edited" {
		t.Errorf("refreshed content %q", got)
	}
	if pr := h.Plan("testing_file", drifted, attrs); len(pr.RequiresReplace) != 0 {
		t.Errorf("content drift replaces testing_file: %#v", pr.RequiresReplace)
	}
	f = h.Up("testing_file", drifted, attrs)
	providercheck.CheckFile(t, path, "one", 0o644)
	if pr := h.Plan("testing_file", f, map[string]cty.Value{"path": cty.StringVal(path + ".2"), "content": cty.StringVal("one")}); !providercheck.HasReplace(pr.RequiresReplace, "path") {
		t.Errorf("a new path does not replace testing_file: %#v", pr.RequiresReplace)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if gone, diags := h.Refresh(f); len(diags) > 0 || gone != nil {
		t.Errorf("refresh of a deleted file: %#v %v", gone, diags)
	}
	// Destroyed without that refresh, the provider says it is gone.
	if dr := h.Destroy(f); !dr.Diagnostics.HasErrors() || dr.Diagnostics[0].Summary != "Object already deleted" {
		t.Errorf("destroying a deleted file: %v", dr.Diagnostics)
	}
}

// An object recorded under the test provider's schema version 0 upgrades
// through a build with version 1, and then plans no change.
func TestTestingProviderUpgrade(t *testing.T) {
	t.Parallel()
	builds := make([]providertest.Provider, 2)
	for v := range builds {
		p, err := providertest.BuildTestProvider(v)
		if errors.Is(err, providertest.ErrNoProxy) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		builds[v] = p
	}
	old := realHarness(t, builds[0].Executable, 6, nil)
	o := old.Up("testing_upgraded", nil, map[string]cty.Value{"value": cty.StringVal("v"), "size": cty.StringVal("12")})
	raw, err := ctyjson.Marshal(o.State, old.Resource("testing_upgraded").Block.ImpliedType())
	if err != nil {
		t.Fatal(err)
	}

	h := realHarness(t, builds[1].Executable, 6, nil)
	if v := h.Resource("testing_upgraded").Version; v != 1 {
		t.Fatalf("testing_upgraded has schema version %d, want 1", v)
	}
	up := h.Upgrade("testing_upgraded", 0, raw)
	providercheck.NoErrors(t, "upgrade", up.Diagnostics)
	want := cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("upgraded"), "value": cty.StringVal("v"), "size": cty.NumberIntVal(12)})
	if !up.UpgradedState.RawEquals(want) {
		t.Fatalf("upgraded %#v, want %#v", up.UpgradedState, want)
	}
	upgraded := &providercheck.Object{Type: "testing_upgraded", State: up.UpgradedState}
	pr := h.Plan("testing_upgraded", upgraded, map[string]cty.Value{"value": cty.StringVal("v"), "size": cty.NumberIntVal(12)})
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !pr.PlannedState.RawEquals(want) {
		t.Errorf("the upgraded object plans %#v, want no change", pr.PlannedState)
	}

	// A recorded value the upgrade cannot convert is an error about it.
	bad := []byte(`{"id":"upgraded","value":"v","size":"twelve"}`)
	providercheck.WantOnlyError(t, h.Upgrade("testing_upgraded", 0, bad).Diagnostics, cty.GetAttrPath("size"), "Invalid size in prior state")
}
