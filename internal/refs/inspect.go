package refs

import "github.com/zclconf/go-cty/cty"

// DerivedAt returns the path of the first value in v that an operation
// derived from a reference (see Derived), so that a message can name the
// argument.
func DerivedAt(v cty.Value) (cty.Path, bool) {
	var at cty.Path
	found := false
	cty.Walk(v, func(p cty.Path, leaf cty.Value) (bool, error) {
		if found {
			return false, nil
		}
		if _, ok := FromValue(leaf); ok || isPlaceholder(leaf) {
			return false, nil
		}
		if leaf.HasMark(Operand) {
			at, found = p.Copy(), true
			return false, nil
		}
		return true, nil
	})
	return at, found
}

// In returns the first reference inside v: a reference value, a
// placeholder, or a value derived from a reference, at any depth. derived
// reports that the value found is not the reference passed on whole.
func In(v cty.Value) (r *Ref, derived bool, ok bool) {
	cty.Walk(v, func(_ cty.Path, leaf cty.Value) (bool, error) {
		if ok {
			return false, nil
		}
		if ref, is := FromValue(leaf); is {
			r, ok = ref, true
			return false, nil
		}
		for m := range leaf.Marks() {
			if rm, is := m.(Mark); is {
				r, derived, ok = rm.Ref, !isPlaceholder(leaf), true
				return false, nil
			}
		}
		if leaf.HasMark(Operand) {
			derived, ok = true, true
			return false, nil
		}
		return true, nil
	})
	return r, derived, ok
}
