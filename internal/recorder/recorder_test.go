package recorder_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providertest"
	"github.com/tetherhq/tether/internal/recorder"
)

// startWrapped builds the recording provider and starts it, through
// Tether's plugin client, in front of the test provider (a plugin
// framework provider speaking protocol 6), logging to the returned file.
func startWrapped(t *testing.T, mock bool) (provider.Provider, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the recording provider and the test provider: skipped with -short")
	}
	real, err := providertest.BuildTestProvider(1)
	if errors.Is(err, providertest.ErrNoProxy) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Built once for every test and test process of the run (the AWS
	// differential of cmd/tether uses it too), and later runs until a
	// source changes.
	wrapper, err := providertest.GoBuild("./internal/recorder/recording-provider")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "calls.jsonl")
	t.Setenv(recorder.EnvProvider, real.Executable)
	t.Setenv(recorder.EnvLog, log)
	t.Setenv(recorder.EnvTool, "unit")
	if mock {
		t.Setenv(recorder.EnvMock, "1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Start(ctx, wrapper)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.(interface{ Close() error }).Close() })
	sch, diags := p.GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diags := p.ConfigureProvider(context.Background(), nullObject(sch.Provider.ImpliedType(), map[string]cty.Value{"prefix": cty.StringVal("p-")})); diags.HasErrors() {
		t.Fatal(diags)
	}
	return p, log
}

// nullObject is an object of type ty, null but for set.
func nullObject(ty cty.Type, set map[string]cty.Value) cty.Value {
	attrs := map[string]cty.Value{}
	for n, at := range ty.AttributeTypes() {
		attrs[n] = cty.NullVal(at)
		if v, ok := set[n]; ok {
			attrs[n] = v
		}
	}
	return cty.ObjectVal(attrs)
}

func readLog(t *testing.T, path string) []recorder.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorder.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e recorder.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("a log line is not an Entry: %v\n%s", err, sc.Text())
		}
		out = append(out, e)
	}
	return out
}

// TestMockLifecycle drives a resource's create, read, import and destroy
// and a data source's read through the wrapper in mock mode: the plan is
// the real provider's (its unknowns included), apply keeps what the plan
// knew and fills the rest alike each time, and every call is logged with
// its values decoded.
func TestMockLifecycle(t *testing.T) {
	p, log := startWrapped(t, true)
	ctx := context.Background()
	sch, _ := p.GetSchema()
	rs, _, err := sch.Resources.Get("testing_thing")
	if err != nil {
		t.Fatal(err)
	}
	ty := rs.Block.ImpliedType()
	config := nullObject(ty, map[string]cty.Value{"name": cty.StringVal("a")})
	plan := p.PlanResourceChange(ctx, provider.PlanRequest{
		TypeName: "testing_thing", PriorState: cty.NullVal(ty), ProposedNewState: config, Config: config,
	})
	if plan.Diagnostics.HasErrors() {
		t.Fatal(plan.Diagnostics)
	}
	if plan.PlannedState.GetAttr("id").IsKnown() {
		t.Fatalf("the real provider's plan should leave id unknown: %#v", plan.PlannedState)
	}
	apply := func() provider.ApplyResponse {
		r := p.ApplyResourceChange(ctx, provider.ApplyRequest{
			TypeName: "testing_thing", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: config,
			PlannedPrivate: plan.PlannedPrivate,
		})
		if r.Diagnostics.HasErrors() {
			t.Fatal(r.Diagnostics)
		}
		return r
	}
	created := apply()
	if !created.NewState.IsWhollyKnown() {
		t.Fatalf("the mock left unknowns: %#v", created.NewState)
	}
	if got := created.NewState.GetAttr("name"); !got.RawEquals(cty.StringVal("a")) {
		t.Errorf("name = %#v, want the planned \"a\"", got)
	}
	if id := created.NewState.GetAttr("id").AsString(); len(id) != 8 {
		t.Errorf("id = %q, want eight generated characters", id)
	}
	if again := apply(); !again.NewState.RawEquals(created.NewState) {
		t.Errorf("a second apply of the same plan generated other values:\n%#v\n%#v", created.NewState, again.NewState)
	}

	read := p.ReadResource(ctx, provider.ReadRequest{TypeName: "testing_thing", PriorState: created.NewState})
	if read.Diagnostics.HasErrors() || !read.NewState.RawEquals(created.NewState) {
		t.Errorf("read returned %#v (%v), want the prior state", read.NewState, read.Diagnostics)
	}
	imp := p.ImportResourceState(ctx, provider.ImportRequest{TypeName: "testing_thing", ID: "imported-1"})
	if imp.Diagnostics.HasErrors() || len(imp.Imported) != 1 {
		t.Fatalf("import: %v %#v", imp.Diagnostics, imp.Imported)
	}
	if got := imp.Imported[0].State; !got.GetAttr("id").RawEquals(cty.StringVal("imported-1")) || !got.GetAttr("name").IsNull() {
		t.Errorf("imported %#v, want id imported-1 and the rest null", got)
	}
	destroyed := p.ApplyResourceChange(ctx, provider.ApplyRequest{
		TypeName: "testing_thing", PriorState: created.NewState, PlannedState: cty.NullVal(ty), Config: cty.NullVal(ty),
	})
	if destroyed.Diagnostics.HasErrors() || !destroyed.NewState.IsNull() {
		t.Errorf("destroy returned %#v (%v), want null", destroyed.NewState, destroyed.Diagnostics)
	}

	ds, _, err := sch.DataSources.Get("testing_echo")
	if err != nil {
		t.Fatal(err)
	}
	dcfg := nullObject(ds.Block.ImpliedType(), nil)
	data := p.ReadDataSource(ctx, provider.ReadDataRequest{TypeName: "testing_echo", Config: dcfg})
	if data.Diagnostics.HasErrors() || data.State.GetAttr("echo").IsNull() {
		t.Errorf("data source read %#v (%v), want echo generated", data.State, data.Diagnostics)
	}

	byMethod := map[string][]recorder.Entry{}
	for _, e := range readLog(t, log) {
		if e.Tool != "unit" || e.Protocol != 6 {
			t.Errorf("entry %s: tool %q protocol %d, want unit and 6", e.Method, e.Tool, e.Protocol)
		}
		byMethod[e.Method] = append(byMethod[e.Method], e)
	}
	for method, mocked := range map[string]bool{
		"GetProviderSchema": false, "ConfigureProvider": false, "PlanResourceChange": false,
		"ApplyResourceChange": true, "ReadResource": true, "ImportResourceState": true, "ReadDataSource": true,
	} {
		es := byMethod[method]
		if len(es) == 0 {
			t.Errorf("no %s in the log", method)
			continue
		}
		if es[0].Mocked != mocked {
			t.Errorf("%s logged as mocked=%v, want %v", method, es[0].Mocked, mocked)
		}
	}
	if es := byMethod["PlanResourceChange"]; len(es) > 0 {
		req, resp := es[0].Request, es[0].Response
		if es[0].TypeName != "testing_thing" || req["proposed_new_state"].(map[string]any)["name"] != "a" {
			t.Errorf("the plan's request is logged as %v", req)
		}
		if id := resp["planned_state"].(map[string]any)["id"]; !jsonEqual(id, recorder.Unknown) {
			t.Errorf("the planned id is logged as %v, want %v", id, recorder.Unknown)
		}
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestMockForwardsRealData checks that mock mode leaves to the real
// provider the data sources EnvRealData names, and still answers the
// others itself.
func TestMockForwardsRealData(t *testing.T) {
	t.Setenv(recorder.EnvRealData, "testing_echo")
	p, log := startWrapped(t, true)
	sch, _ := p.GetSchema()
	ds, _, err := sch.DataSources.Get("testing_echo")
	if err != nil {
		t.Fatal(err)
	}
	data := p.ReadDataSource(context.Background(), provider.ReadDataRequest{TypeName: "testing_echo", Config: nullObject(ds.Block.ImpliedType(), nil)})
	if data.Diagnostics.HasErrors() {
		t.Fatal(data.Diagnostics)
	}
	var reads int
	for _, e := range readLog(t, log) {
		if e.Method == "ReadDataSource" {
			reads++
			if e.Mocked {
				t.Errorf("ReadDataSource of %s was answered by the mock, want the real provider", e.TypeName)
			}
		}
	}
	if reads != 1 {
		t.Errorf("%d ReadDataSource entries in the log, want 1", reads)
	}
}
