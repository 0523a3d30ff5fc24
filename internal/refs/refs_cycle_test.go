package refs

import (
	"context"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestReferenceCycleListsItsMembers(t *testing.T) {
	Register("test_lookup", cty.String, func(_ context.Context, args []cty.Value) (cty.Value, error) {
		return args[0], nil
	})
	a := &Ref{Kind: "test_lookup", Type: cty.String}
	b := &Ref{Kind: "test_lookup", Type: cty.String, Args: []cty.Value{Val(a), cty.StringVal("b-arg")}}
	a.Args = []cty.Value{Val(b), cty.StringVal("a-arg")}

	// Describing a cycle must end.
	if d := a.Description(); !strings.Contains(d, "...") {
		t.Fatalf("description of a cycle: %q", d)
	}
	_, err := Resolve(context.Background(), a)
	if err == nil {
		t.Fatal("a reference that contains itself resolved")
	}
	want := "reference cycle: (test_lookup a-arg) -> (test_lookup b-arg) -> (test_lookup a-arg)"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestComposedReferencesResolveInnerFirst(t *testing.T) {
	t.Setenv("TETHER_TEST_NAME", "TETHER_TEST_VALUE")
	t.Setenv("TETHER_TEST_VALUE", "the value")
	inner, err := New("env", cty.StringVal("TETHER_TEST_NAME"))
	if err != nil {
		t.Fatal(err)
	}
	outer, err := New("env", Val(inner))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Resolve(context.Background(), outer)
	if err != nil {
		t.Fatal(err)
	}
	if v.AsString() != "the value" {
		t.Fatalf("resolved to %q", v.AsString())
	}
	if d := outer.Description(); d != "(reference env (reference env TETHER_TEST_NAME))" {
		t.Fatalf("description %q", d)
	}
}

func TestUnregisteredKindIsNamed(t *testing.T) {
	if _, err := New("no_such_kind"); err == nil || !strings.Contains(err.Error(), `"no_such_kind"`) {
		t.Fatalf("New of an unregistered kind: %v", err)
	}
}
