package marks

import (
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/zclconf/go-cty/cty"
)

type mark string

// Sensitive marks a value that must be shown as (sensitive) and never
// written anywhere in clear text.
const Sensitive = mark("sensitive")

// WriteOnly marks, in a planned object, the null that stands for a
// write-only attribute the configuration sets: renderers show it as
// "(write-only attribute)", never a value, since none is kept.
const WriteOnly = mark("write-only")

// Ephemeral marks a value that exists only while one command runs: an
// ephemeral resource's result, an ephemeral variable or output, and
// whatever is computed from them. Such a value may reach only places that
// keep nothing (provider configurations, write-only attributes, locals,
// other ephemeral values); it is never written to state or a plan.
const Ephemeral = mark("ephemeral")

// ContainsEphemeral reports whether v or anything inside it is ephemeral.
func ContainsEphemeral(v cty.Value) bool {
	if v.HasMark(Ephemeral) {
		return true
	}
	if !v.ContainsMarked() {
		return false
	}
	_, pvm := v.UnmarkDeepWithPaths()
	for _, p := range pvm {
		if _, ok := p.Marks[Ephemeral]; ok {
			return true
		}
	}
	return false
}

// IsSensitive reports whether v carries the Sensitive mark itself (not
// counting marks nested inside it).
func IsSensitive(v cty.Value) bool { return v.HasMark(Sensitive) }

// ContainsSensitive reports whether v or anything inside it is sensitive.
func ContainsSensitive(v cty.Value) bool {
	return v.HasMark(Sensitive) || v.ContainsMarked() && hasDeep(v)
}

func hasDeep(v cty.Value) bool {
	_, pvm := v.UnmarkDeepWithPaths()
	for _, p := range pvm {
		if _, ok := p.Marks[Sensitive]; ok {
			return true
		}
	}
	return false
}

// MarkPaths marks the values at paths within v as sensitive.
func MarkPaths(v cty.Value, paths []cty.Path) cty.Value {
	if len(paths) == 0 {
		return v
	}
	pvm := make([]cty.PathValueMarks, len(paths))
	for i, p := range paths {
		pvm[i] = cty.PathValueMarks{Path: p, Marks: cty.NewValueMarks(Sensitive)}
	}
	return v.MarkWithPaths(pvm)
}

// Unmark removes every mark from v and returns the paths that were
// sensitive.
func Unmark(v cty.Value) (cty.Value, []cty.Path) {
	if !ContainsMarked(v) {
		return v, nil
	}
	uv, pvm := v.UnmarkDeepWithPaths()
	var paths []cty.Path
	for _, p := range pvm {
		if _, ok := p.Marks[Sensitive]; ok {
			paths = append(paths, p.Path)
		}
	}
	return uv, paths
}

// EphemeralPaths returns the paths within v whose values are ephemeral,
// cty.Path{} for v itself.
func EphemeralPaths(v cty.Value) []cty.Path {
	if !ContainsMarked(v) {
		return nil
	}
	_, pvm := v.UnmarkDeepWithPaths()
	var paths []cty.Path
	for _, p := range pvm {
		if _, ok := p.Marks[Ephemeral]; ok {
			paths = append(paths, p.Path)
		}
	}
	return paths
}

// ContainsMarked is v.ContainsMarked(), whatever the marks, without
// building a path for each value visited: the engine asks it of every
// configuration it plans, and most carry no mark at all.
func ContainsMarked(v cty.Value) bool {
	return AnyNested(v, cty.Value.IsMarked)
}

// AnyNested reports whether f holds for v or for any value nested in it,
// visiting each as go-cty's Walk does (marked values before their marks
// are taken off to look inside) but without building paths.
func AnyNested(v cty.Value, f func(cty.Value) bool) bool {
	if f(v) {
		return true
	}
	if v.Type().IsPrimitiveType() {
		// Nothing inside to visit (most attributes): asked before its
		// marks are taken off and it is looked at.
		return false
	}
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() {
		return false
	}
	ty := v.Type()
	switch {
	case ty.IsObjectType():
		return ctysame.AnyAttr(v, func(_ string, av cty.Value) bool { return AnyNested(av, f) })
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsTupleType():
		if v.LengthInt() == 0 {
			return false
		}
		for it := v.ElementIterator(); it.Next(); {
			if _, e := it.Element(); AnyNested(e, f) {
				return true
			}
		}
	}
	return false
}
