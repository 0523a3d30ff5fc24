package refs

import (
	"fmt"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/zclconf/go-cty/cty"
)

// Operand marks a reference value in configuration, and so everything an
// operation derives from it: a value that carries it but is not itself a
// reference came from using a reference in an operation, which is an
// error wherever it lands.
type operand struct{}

// Operand is the mark on reference values in configuration.
var Operand = operand{}

// Placeholders replaces each reference inside v with its placeholder: the
// description, marked with Mark, for a string or untyped reference; an
// unknown marked value for other primitive types; and for a reference to
// an object, an object of field references, each a placeholder. It fails
// when v holds a value derived from a reference by an operation.
func Placeholders(v cty.Value) (cty.Value, error) {
	if plain(v) {
		return v, nil // what Transform would rebuild, unchanged
	}
	var opErr error
	out, err := cty.Transform(v, func(p cty.Path, leaf cty.Value) (cty.Value, error) {
		if r, ok := FromValue(leaf); ok {
			return placeholder(r), nil
		}
		if isPlaceholder(leaf) {
			return leaf, nil
		}
		if leaf.HasMark(Operand) && opErr == nil {
			opErr = fmt.Errorf("a reference was used in an operation (interpolation, concatenation, comparison, arithmetic or a function that does not accept references); a reference can only be passed on whole, as a resource argument or as an argument of another reference")
		}
		if leaf.HasMark(Operand) {
			leaf, _ = leaf.Unmark()
		}
		return leaf, nil
	})
	if opErr != nil {
		return cty.DynamicVal, opErr
	}
	return out, err
}

// plain reports whether v holds neither a reference nor a mark: nothing
// Placeholders changes. The configuration's every argument is asked, and
// few hold either.
func plain(v cty.Value) bool {
	return !marks.AnyNested(v, func(v cty.Value) bool { return v.IsMarked() || v.Type() == Type })
}

func placeholder(r *Ref) cty.Value {
	switch {
	case r.Type == cty.String || r.Type == cty.DynamicPseudoType:
		return cty.StringVal(r.Description()).Mark(Mark{r})
	case r.Type.IsObjectType():
		attrs := map[string]cty.Value{}
		for name, ty := range r.Type.AttributeTypes() {
			attrs[name] = placeholder(Field(r, name, ty))
		}
		return cty.ObjectVal(attrs)
	default:
		return cty.UnknownVal(r.Type).Mark(Mark{r})
	}
}

// Found is one reference placeholder in a value.
type Found struct {
	Path cty.Path
	Ref  *Ref
}

// Find lists the reference placeholders in a marked value.
func Find(v cty.Value) []Found {
	if !marks.ContainsMarked(v) {
		return nil
	}
	_, pvm := v.UnmarkDeepWithPaths()
	var out []Found
	for _, p := range pvm {
		for m := range p.Marks {
			if rm, ok := m.(Mark); ok {
				out = append(out, Found{Path: p.Path, Ref: rm.Ref})
			}
		}
	}
	return out
}

// Derived reports whether v holds a value that an operation derived from a
// reference (as opposed to references passed on whole).
func Derived(v cty.Value) bool {
	if !marks.ContainsMarked(v) && !v.HasMark(Operand) {
		return false
	}
	found := false
	cty.Walk(v, func(p cty.Path, leaf cty.Value) (bool, error) {
		if _, ok := FromValue(leaf); ok || isPlaceholder(leaf) {
			return false, nil
		}
		if leaf.HasMark(Operand) {
			found = true
			return false, nil
		}
		return true, nil
	})
	return found
}

// isPlaceholder reports whether v is a reference's placeholder passed on
// whole: a value an operation derived from one carries the same marks,
// but not exactly the description.
func isPlaceholder(v cty.Value) bool {
	for m := range v.Marks() {
		rm, ok := m.(Mark)
		if !ok {
			continue
		}
		u, _ := v.Unmark()
		if !u.IsKnown() {
			return true
		}
		return u.Type() == cty.String && !u.IsNull() && u.AsString() == rm.Ref.Description()
	}
	return false
}
