package refs

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestInAndDerivedAt(t *testing.T) {
	r, err := New("env", cty.StringVal("X"))
	if err != nil {
		t.Fatal(err)
	}
	whole := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("plain"), "b": Val(r).Mark(Operand)})
	if got, derived, ok := In(whole); !ok || derived || got != r {
		t.Errorf("In(reference on whole) = %v, %v, %v", got, derived, ok)
	}
	if _, ok := DerivedAt(whole); ok {
		t.Error("a reference passed on whole is not derived")
	}
	ph, err := Placeholders(whole)
	if err != nil {
		t.Fatal(err)
	}
	if got, derived, ok := In(ph); !ok || derived || got != r {
		t.Errorf("In(placeholder) = %v, %v, %v", got, derived, ok)
	}
	op := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.StringVal("pw=(reference env X)").Mark(Operand)})
	if _, derived, ok := In(op); !ok || !derived {
		t.Errorf("In(derived) = %v, %v", derived, ok)
	}
	p, ok := DerivedAt(op)
	if !ok || !p.Equals(cty.GetAttrPath("b")) {
		t.Errorf("DerivedAt = %#v, %v", p, ok)
	}
	if _, _, ok := In(cty.StringVal("nothing")); ok {
		t.Error("In found a reference in a plain string")
	}
}

// TestPlaceholdersLeavesPlainValues checks that Placeholders finds a
// reference or a mark at any depth, and returns a value without either as
// it is.
func TestPlaceholdersLeavesPlainValues(t *testing.T) {
	r, err := New("env", cty.StringVal("X"))
	if err != nil {
		t.Fatal(err)
	}
	obj := func(v cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": v})
	}
	for _, c := range []struct {
		name  string
		v     cty.Value
		plain bool
	}{
		{"string", cty.StringVal("x"), true},
		{"nested", obj(cty.ListVal([]cty.Value{obj(cty.MapVal(map[string]cty.Value{"k": cty.True}))})), true},
		{"null and unknown", obj(cty.TupleVal([]cty.Value{cty.NullVal(cty.String), cty.UnknownVal(cty.Number)})), true},
		{"empty", obj(cty.SetValEmpty(cty.String)), true},
		{"reference", Val(r), false},
		{"reference in a list", obj(cty.TupleVal([]cty.Value{cty.StringVal("y"), Val(r)})), false},
		{"reference in a map", obj(cty.MapVal(map[string]cty.Value{"k": Val(r)})), false},
		{"operand", obj(cty.ListVal([]cty.Value{cty.StringVal("y").Mark(Operand)})), false},
		{"other mark", obj(cty.SetVal([]cty.Value{cty.StringVal("y").Mark("sensitive")})), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := plain(c.v); got != c.plain {
				t.Fatalf("plain = %t, want %t", got, c.plain)
			}
			out, err := Placeholders(c.v)
			if c.plain && (err != nil || !out.RawEquals(c.v)) {
				t.Errorf("Placeholders = %#v, %v; want the value as it is", out, err)
			}
			// Other marks stay, and go through Transform like references.
			if !c.plain && c.name != "other mark" && err == nil && out.RawEquals(c.v) {
				t.Errorf("Placeholders left %#v as it is", c.v)
			}
		})
	}
}
