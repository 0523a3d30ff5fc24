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
