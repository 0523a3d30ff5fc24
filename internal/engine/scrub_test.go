package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/refs"
	"github.com/tetherhq/tether/internal/secrets"
)

// TestScrubNamesTheRightReference: an echo of a resolved string, found
// away from the reference's own path, is replaced by the description of
// the reference it came from, also when a reference before it resolved
// to something too short to look for.
func TestScrubNamesTheRightReference(t *testing.T) {
	t.Setenv("TETHER_TEST_SHORT", "ab")
	t.Setenv("TETHER_TEST_LONG", "long-secret-value")
	short, err := refs.New("env", cty.StringVal("TETHER_TEST_SHORT"))
	if err != nil {
		t.Fatal(err)
	}
	long, err := refs.New("env", cty.StringVal("TETHER_TEST_LONG"))
	if err != nil {
		t.Fatal(err)
	}
	found := []refs.Found{
		{Path: cty.GetAttrPath("a"), Ref: short},
		{Path: cty.GetAttrPath("b"), Ref: long},
	}
	e := &Engine{}
	res, diags := e.resolve(context.Background(), "tether_value.x", nil, found)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	returned := cty.ObjectVal(map[string]cty.Value{
		"a":    cty.StringVal("ab"),
		"b":    cty.StringVal("long-secret-value"),
		"echo": cty.StringVal("token=long-secret-value;"),
	})
	got := e.scrub(returned, res, nil).GetAttr("echo").AsString()
	if want := "token=" + long.Description() + ";"; got != want {
		t.Errorf("echo scrubbed to %q, want %q", got, want)
	}
	// Read back as the prior of the next plan, the echo is the value it
	// was (the references unchanged).
	keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
	if err != nil {
		t.Fatal(err)
	}
	e.Keys = keys
	res, _ = e.resolve(context.Background(), "tether_value.x", nil, found)
	back := res.priorFor(e.scrub(returned, res, nil), res.records())
	if got := back.GetAttr("echo").AsString(); got != "token=long-secret-value;" {
		t.Errorf("echo read back as %q", got)
	}
}

// TestScrubSharedPrefix: two resolved strings that share a prefix, one
// echoed inside the other's stretch, leave nothing of either in clear.
func TestScrubSharedPrefix(t *testing.T) {
	t.Setenv("TETHER_TEST_A", "CANARY-prefix")
	t.Setenv("TETHER_TEST_B", "CANARY-prefix-and-more")
	a, _ := refs.New("env", cty.StringVal("TETHER_TEST_A"))
	b, _ := refs.New("env", cty.StringVal("TETHER_TEST_B"))
	e := &Engine{}
	res, diags := e.resolve(context.Background(), "tether_value.x", nil, []refs.Found{
		{Path: cty.GetAttrPath("a"), Ref: a},
		{Path: cty.GetAttrPath("b"), Ref: b},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	returned := cty.ObjectVal(map[string]cty.Value{
		"echo": cty.StringVal("x CANARY-prefix-and-more y CANARY-prefix z"),
	})
	got := e.scrub(returned, res, nil).GetAttr("echo").AsString()
	if want := "x " + b.Description() + " y " + a.Description() + " z"; got != want {
		t.Errorf("echo scrubbed to %q, want %q", got, want)
	}
}
