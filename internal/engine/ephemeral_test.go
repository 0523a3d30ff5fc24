package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// leasing is the built-in provider plus an ephemeral resource type,
// tether_lease, that asks to be renewed every few milliseconds, and a
// tether_value whose creation takes a while: long enough for renewals.
type leasing struct {
	provider.Provider
	mu     sync.Mutex
	events []string
}

func (l *leasing) note(s string) {
	l.mu.Lock()
	l.events = append(l.events, s)
	l.mu.Unlock()
}

func (l *leasing) ValidateEphemeralConfig(string, cty.Value) hcl.Diagnostics { return nil }

func (l *leasing) OpenEphemeral(_ context.Context, req provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	l.note("open")
	return provider.OpenEphemeralResponse{
		Result:  cty.ObjectVal(map[string]cty.Value{"name": req.Config.GetAttr("name"), "value": cty.StringVal("lease-1")}),
		Private: []byte("1"),
		RenewAt: time.Now().Add(20 * time.Millisecond),
	}
}

func (l *leasing) RenewEphemeral(_ context.Context, req provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	l.note("renew " + string(req.Private))
	return provider.RenewEphemeralResponse{Private: append(req.Private, '+'), RenewAt: time.Now().Add(20 * time.Millisecond)}
}

func (l *leasing) CloseEphemeral(_ context.Context, req provider.CloseEphemeralRequest) hcl.Diagnostics {
	l.note("close " + string(req.Private))
	return nil
}

func (l *leasing) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	time.Sleep(300 * time.Millisecond)
	return l.Provider.ApplyResourceChange(ctx, req)
}

// TestEphemeralRenewedUntilClosed applies a resource that waits for an
// ephemeral resource: the lease is renewed whenever the provider asked,
// each renewal hands back the private data of the one before, and it is
// closed once, at the end of each walk, with the latest private data;
// nothing renews it after.
func TestEphemeralRenewedUntilClosed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`
ephemeral "tether_lease" "l" {
  name = "db"
}

resource "tether_value" "v" {
  input      = "x"
  depends_on = [ephemeral.tether_lease.l]
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRecording(t, dir)
	base, _ := tetherprovider.New().GetSchema()
	sch := *base
	sch.EphemeralResources = provider.NewTypes(map[string]*provider.ResourceSchema{"tether_lease": {Block: &provider.Block{Attributes: map[string]*provider.Attribute{
		"name":  {Type: cty.String, Required: true},
		"value": {Type: cty.String, Computed: true, Sensitive: true},
	}}}})
	r.schema = &sch
	l := &leasing{Provider: tetherprovider.New()}
	r.engine.Providers.Start = func(string) (provider.Provider, error) { return l, nil }
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	planned, diags := r.engine.Plan(context.Background(), cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := r.engine.Apply(context.Background(), planned); diags.HasErrors() {
		t.Fatal(diags)
	}
	time.Sleep(60 * time.Millisecond) // a renewal after the close would show now
	l.mu.Lock()
	events := strings.Join(l.events, "\n")
	l.mu.Unlock()
	lines := strings.Split(events, "\n")
	if strings.Count(events, "open") != 2 || strings.Count(events, "close") != 2 || !strings.HasPrefix(lines[len(lines)-1], "close") {
		t.Fatalf("want one open and one close per walk (plan, apply), nothing after the last close; got:\n%s", events)
	}
	apply := events[strings.LastIndex(events, "open"):]
	renewals := strings.Count(apply, "renew")
	if renewals < 2 {
		t.Fatalf("the apply took 300ms with a lease to renew every 20ms, but it was renewed %d times:\n%s", renewals, apply)
	}
	// Each renewal is given what the previous one returned, and the close
	// the last of them.
	want := "1" + strings.Repeat("+", renewals)
	if !strings.HasSuffix(strings.TrimSpace(events), "close "+want) {
		t.Fatalf("the close was not given the latest private data %q:\n%s", want, events)
	}
}
