package sdk

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/refs"
)

// Output is a value of type T that is not known while the program runs:
// an attribute of a resource, known once the resource is planned or
// created, or something computed from such values with Apply and All.
//
// An Output goes wherever the value will be needed: into another
// resource's arguments (a string field takes its String form; an
// attribute of any type takes the Output itself, or use Set), into
// Stack.Export, or into fmt.Sprintf and string concatenation through
// String. Each such use makes the user wait for the values the Output
// comes from, so Tether orders the work from them.
//
// The zero Output stands for no value (null).
type Output[T any] struct{ l *lazy }

// lazy is the type-erased part of an Output: what it depends on and how
// to compute it from the values the engine has.
type lazy struct {
	// stack is the stack whose resources the value comes from; nil for a
	// value that depends on none.
	stack *Stack
	// deps are the addresses of the nodes the value is computed from.
	deps []string
	// desc says what the value is, for messages: tether_file.a.sha256.
	desc string
	// ty is the value's cty type, from T; DynamicPseudoType when T does
	// not decide one.
	ty cty.Type
	// err is a problem found when the value was made (mixing stacks,
	// an unknown attribute), reported where the value is used.
	err  *hcl.Diagnostic
	eval func(config.Scope) (cty.Value, hcl.Diagnostics)
	// ref is set when the value is a reference, passed on whole.
	ref *refs.Ref
	// attr is set for an attribute of a resource (tether.Attr): what a
	// closure reads at run time (see capture.go).
	attr *attrRead
	// tf writes the value in Terraform's native syntax, for synth; nil
	// when Terraform cannot compute it (see synth.go).
	tf func() (string, error)
}

// lazyHolder is implemented by every Output, whatever its T.
type lazyHolder interface{ lazyRef() *lazy }

func (o Output[T]) lazyRef() *lazy {
	if o.l == nil {
		return nullLazy
	}
	return o.l
}

// String returns a token that stands for the value inside a string. It
// can be concatenated, formatted with fmt.Sprintf and passed in any string
// argument; Tether puts the value (converted to a string) in its place
// once it is known, and whoever uses the string waits for it. A token
// means nothing outside a resource argument or an export: written to a
// file or compared while the program runs, it is just text. In code
// running in a deployed function or test, String is the value itself
// (see Get).
func (o Output[T]) String() string {
	if o.l == nil {
		return ""
	}
	if running() {
		return o.runtimeString()
	}
	if s, ok := o.rebuildString(); ok {
		return s
	}
	return tokenFor(o.l)
}

// Format makes fmt write the String token for %s and %v. Any other verb,
// or a width or precision, cannot be applied to a value that is not known
// yet; it writes a marker that the SDK reports, at the call that is given
// the string, as a mistake.
func (o Output[T]) Format(f fmt.State, verb rune) {
	if running() {
		o.runtimeFormat(f, verb)
		return
	}
	if _, ok := o.rebuildString(); ok {
		o.runtimeFormat(f, verb)
		return
	}
	_, hasWidth := f.Width()
	_, hasPrec := f.Precision()
	if (verb == 's' || verb == 'v') && !hasWidth && !hasPrec {
		io.WriteString(f, o.String())
		return
	}
	fmt.Fprintf(f, "%s%s}", badVerbPrefix, fmt.FormatString(f, verb))
}

// badVerbPrefix starts what Format writes for a verb it cannot honour.
const badVerbPrefix = "${tether:verb:"

// nullLazy is the value of a zero Output.
var nullLazy = &lazy{desc: "a zero Output", ty: cty.DynamicPseudoType, eval: func(config.Scope) (cty.Value, hcl.Diagnostics) {
	return cty.NullVal(cty.DynamicPseudoType), nil
}, tf: func() (string, error) { return "null", nil }}

// made records o as an Output the program made (see noteMade); the
// exported functions that return a new Output to the program end with it.
func made[T any](o Output[T]) Output[T] {
	noteMade(o.l)
	return o
}

// Val makes an Output of a value. The value may hold Outputs or tokens
// inside it (a struct or map with lazy fields): the result then waits for
// them, which makes Val a way to gather several Outputs into one.
func Val[T any](v T) Output[T] {
	return made(Output[T]{l: given(v, "tether.Val", "value", caller(1), false)})
}

// given is the lazy value behind Val and Secret: v, once the Outputs and
// tokens inside it are known, converted to T's type. A secret is marked
// sensitive, has no Terraform form to synthesize, and a reference in it
// stays a reference (a reference is never shown anyway).
func given[T any](v T, fn, what string, pos hcl.Range, secret bool) *lazy {
	b := &builder{where: fn, pos: pos}
	t := b.value(reflect.ValueOf(&v).Elem(), "", 0)
	l := &lazy{stack: b.stack, deps: b.depList(), desc: "the " + what + " given to " + fn + " at " + posString(pos), ty: ctyTypeOf(reflect.TypeFor[T]())}
	if !secret {
		l.tf = t.terraformNative
	}
	if len(b.diags) > 0 {
		l.err = b.diags[0]
	}
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) {
		v, diags := t.eval(sc)
		if diags.HasErrors() {
			return cty.DynamicVal, diags
		}
		if _, _, ok := refs.In(v); ok && secret {
			return v, diags
		}
		cv, err := convert.Convert(v, l.ty)
		if err != nil {
			return cty.DynamicVal, hcl.Diagnostics{diagAt(pos, "Invalid value for "+fn, "%s", diagnostic.Failed("converting the "+what+" to "+reflect.TypeFor[T]().String(), err))}
		}
		if secret {
			cv = cv.Mark(marks.Sensitive)
		}
		return cv, diags
	}
	return l
}

// Apply makes an Output from o by calling f with o's value once it is
// known, during plan when it already is, otherwise during apply. f may be
// called more than once, and concurrently with other functions, and must
// not declare resources; keep it free of side effects. A sensitive input
// makes a sensitive result.
func Apply[T, U any](o Output[T], f func(T) U) Output[U] {
	pos := caller(1)
	in := o.lazyRef()
	return made(Output[U]{l: applyN(pos, "tether.Apply", []*lazy{in}, reflect.TypeFor[U](), func(args []cty.Value) (any, error) {
		var t T
		if err := fromCty(args[0], reflect.ValueOf(&t).Elem()); err != nil {
			return nil, fmt.Errorf("its value (%s) does not fit %s: %v", in.desc, reflect.TypeFor[T](), err)
		}
		return f(t), nil
	})})
}

// Apply2 is Apply over two Outputs.
func Apply2[A, B, U any](a Output[A], b Output[B], f func(A, B) U) Output[U] {
	pos := caller(1)
	ins := []*lazy{a.lazyRef(), b.lazyRef()}
	return made(Output[U]{l: applyN(pos, "tether.Apply2", ins, reflect.TypeFor[U](), func(args []cty.Value) (any, error) {
		var x A
		var y B
		if err := fromCty(args[0], reflect.ValueOf(&x).Elem()); err != nil {
			return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[0].desc, reflect.TypeFor[A](), err)
		}
		if err := fromCty(args[1], reflect.ValueOf(&y).Elem()); err != nil {
			return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[1].desc, reflect.TypeFor[B](), err)
		}
		return f(x, y), nil
	})})
}

// Apply3 is Apply over three Outputs.
func Apply3[A, B, C, U any](a Output[A], b Output[B], c Output[C], f func(A, B, C) U) Output[U] {
	pos := caller(1)
	ins := []*lazy{a.lazyRef(), b.lazyRef(), c.lazyRef()}
	return made(Output[U]{l: applyN(pos, "tether.Apply3", ins, reflect.TypeFor[U](), func(args []cty.Value) (any, error) {
		var x A
		var y B
		var z C
		if err := fromCty(args[0], reflect.ValueOf(&x).Elem()); err != nil {
			return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[0].desc, reflect.TypeFor[A](), err)
		}
		if err := fromCty(args[1], reflect.ValueOf(&y).Elem()); err != nil {
			return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[1].desc, reflect.TypeFor[B](), err)
		}
		if err := fromCty(args[2], reflect.ValueOf(&z).Elem()); err != nil {
			return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[2].desc, reflect.TypeFor[C](), err)
		}
		return f(x, y, z), nil
	})})
}

// All gathers Outputs of one type into an Output of a slice, known once
// all of them are.
func All[T any](outputs ...Output[T]) Output[[]T] {
	pos := caller(1)
	ins := make([]*lazy, len(outputs))
	for i, o := range outputs {
		ins[i] = o.lazyRef()
	}
	return made(Output[[]T]{l: applyN(pos, "tether.All", ins, reflect.TypeFor[[]T](), func(args []cty.Value) (any, error) {
		out := make([]T, len(args))
		for i, a := range args {
			if err := fromCty(a, reflect.ValueOf(&out[i]).Elem()); err != nil {
				return nil, fmt.Errorf("the value of %s does not fit %s: %v", ins[i].desc, reflect.TypeFor[T](), err)
			}
		}
		return out, nil
	})})
}

// applyN makes a lazy value computed by f from the values of ins, once
// all of them are wholly known.
func applyN(pos hcl.Range, what string, ins []*lazy, out reflect.Type, f func([]cty.Value) (any, error)) *lazy {
	ty := ctyTypeOf(out)
	l := &lazy{desc: fmt.Sprintf("the result of %s at %s", what, posString(pos)), ty: ty}
	deps := map[string]bool{}
	for _, in := range ins {
		if in.err != nil && l.err == nil {
			l.err = in.err
		}
		if in.stack != nil {
			if l.stack != nil && l.stack != in.stack && l.err == nil {
				l.err = diagAt(pos, "Values of two stacks combined", "%s combines values of two different stacks (%s among them); a value can only be used in the stack it comes from.", what, in.desc)
			}
			if l.stack == nil {
				l.stack = in.stack
			}
		}
		for _, d := range in.deps {
			deps[d] = true
		}
	}
	l.deps = sortedSet(deps)
	// compute is f on wholly known, unmarked values: the result without
	// marks. Under Terraform, the program runs it alone (see
	// synth_apply.go).
	compute := func(args []cty.Value) (cty.Value, hcl.Diagnostics) {
		res, diags := call(pos, what, func() (any, error) { return f(args) })
		if diags.HasErrors() {
			return cty.DynamicVal, diags
		}
		b := &builder{where: "the function given to " + what, pos: pos, noLazy: true}
		t := b.value(reflect.ValueOf(res), "", 0)
		if len(b.lazyArgs) > 0 {
			return cty.DynamicVal, append(diags, diagAt(pos, "Lazy value returned by a function",
				"The function given to %s at %s returned %s, which is lazy. Return plain values; to combine several Outputs, pass them all in (Apply2, Apply3, All).", what, posString(pos), strings.Join(b.lazyArgs, " and ")))
		}
		if len(b.diags) > 0 {
			return cty.DynamicVal, append(diags, b.diags...)
		}
		// A result holds no lazy values, so it reads nothing from a scope.
		v, d := t.eval(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }))
		diags = append(diags, d...)
		cv, err := convert.Convert(v, ty)
		if err != nil {
			return cty.DynamicVal, append(diags, diagAt(pos, "Invalid result of a function", "The function given to %s at %s returned a value that does not fit its result type: %v.", what, posString(pos), err))
		}
		return cv, diags
	}
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) {
		var diags hcl.Diagnostics
		args := make([]cty.Value, len(ins))
		var all cty.ValueMarks
		known := true
		for i, in := range ins {
			v, d := in.eval(sc)
			diags = append(diags, d...)
			if d.HasErrors() {
				return cty.DynamicVal, diags
			}
			if r, _, ok := refs.In(v); ok {
				return cty.DynamicVal, append(diags, referenceToFunc(pos, what, in.desc, r))
			}
			uv, m := v.UnmarkDeep()
			if len(m) > 0 {
				if all == nil {
					all = cty.ValueMarks{}
				}
				for k := range m {
					all[k] = struct{}{}
				}
			}
			known = known && uv.IsWhollyKnown()
			args[i] = uv
		}
		if !known {
			return cty.UnknownVal(ty.WithoutOptionalAttributesDeep()).WithMarks(all), diags
		}
		v, d := compute(args)
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.DynamicVal, diags
		}
		return v.WithMarks(all), diags
	}
	l.tf = terraformApply(l, pos, what, ins, compute)
	return l
}

// referenceToFunc is the mistake of giving a reference to a function of
// the program that takes plain values.
func referenceToFunc(pos hcl.Range, what, desc string, r *refs.Ref) *hcl.Diagnostic {
	held := "a value computed from a reference"
	if r != nil {
		held = "the reference " + r.Description()
	}
	return diagAt(pos, "Reference passed to a function",
		"%s at %s was given %s, which holds %s. The function given to %s takes plain values, and a reference has no value in the program: Tether resolves it only for the provider call that needs it. Pass the reference on whole to a resource argument instead. A function that accepts references must declare it: compute from a referenced value in the Resolve method of a reference kind of your own, whose field is declared as tether.Reference[T] (see tether.RegisterReference).",
		what, posString(pos), desc, held, what)
}

// Secret makes an Output of a value that must stay secret: it is shown as
// (sensitive value) in plans, in `up` and in `tether output`, and so is
// every value computed from it (a string it is formatted into, the result
// of Apply, the attribute of a resource it is given to). The engine seals
// any resource object or output holding it in state (AES-256-GCM under
// the state's key). Export it with Sensitive().
//
// Unlike a Reference, the value is in the program: it came from
// somewhere the program read. Where it can be read by the engine itself
// (an environment variable, a file), a reference keeps it out of state
// altogether.
func Secret[T any](v T) Output[T] {
	return made(Output[T]{l: given(v, "tether.Secret", "secret", caller(1), true)})
}

// call runs a function from the program, turning a panic or an error
// into a diagnostic at pos.
func call(pos hcl.Range, what string, f func() (any, error)) (res any, diags hcl.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			site, ok := panicSite()
			if !ok {
				site = pos
			}
			diags = hcl.Diagnostics{diagAt(site, "Function panicked",
				"The function given to %s at %s panicked: %v", what, posString(pos), r)}
		}
	}()
	res, err := f()
	if err != nil {
		return nil, hcl.Diagnostics{diagAt(pos, "Function returned an error", "The function given to %s at %s returned an error: %v.", what, posString(pos), err)}
	}
	return res, nil
}

// Attr returns the attribute name of a resource, or of a data source read
// in output form, or the output name of a module call, as an Output. Generated bindings call it from their
// getters; programs can use it for an attribute the bindings lack.
func Attr[T any](r Dependable, name string) Output[T] {
	return made(attrAt[T](r, name, caller(1)))
}

// attrAt is Attr for the SDK's own use, at pos: an Output the program
// does not hold.
func attrAt[T any](r Dependable, name string, pos hcl.Range) Output[T] {
	c, diag := constructOf(r, pos, "tether.Attr")
	ty := ctyTypeOf(reflect.TypeFor[T]())
	if diag != nil {
		return Output[T]{l: &lazy{desc: name, ty: ty, err: diag, eval: func(config.Scope) (cty.Value, hcl.Diagnostics) {
			return cty.UnknownVal(ty.WithoutOptionalAttributesDeep()), nil
		}}}
	}
	l := &lazy{stack: c.stack, deps: []string{c.addr}, desc: c.addr + "." + name, ty: ty, tf: terraformAttr(c.addr, name)}
	if c.kind == kindModule {
		moduleOutput(l, c, name, pos)
		return Output[T]{l: l}
	}
	switch {
	case c.kind == kindComponent:
		l.err = diagAt(pos, "A component has no attributes", "tether.Attr was given the component %s; pass one of its resources, or a value the component exposes.", c.addr)
	case c.schema != nil && c.schema != standInSchema && c.schema.Block != nil:
		b := c.schema.Block
		if _, ok := b.Attributes[name]; !ok {
			if _, ok := b.BlockTypes[name]; !ok {
				l.err = diagAt(pos, "Unsupported attribute", "The %s type of provider %q has no attribute or block named %q.", c.typ.Name, c.typ.Provider, name)
			}
		}
	}
	addr := c.addr
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) {
		return getAttr(sc.Value(addr), name, ty), nil
	}
	noteAttr(l, c, name, pos)
	return Output[T]{l: l}
}

// getAttr reads one attribute of an object value that may still be
// unknown or null.
func getAttr(v cty.Value, name string, ty cty.Type) cty.Value {
	ty = ty.WithoutOptionalAttributesDeep()
	uv, m := v.Unmark()
	switch {
	case !uv.IsKnown():
		return cty.UnknownVal(ty).WithMarks(m)
	case uv.IsNull():
		return cty.NullVal(ty).WithMarks(m)
	case !uv.Type().IsObjectType() || !uv.Type().HasAttribute(name):
		return cty.NullVal(ty).WithMarks(m)
	}
	return uv.GetAttr(name).WithMarks(m)
}

// Sprintf is fmt.Sprintf returning an Output: formatting Outputs (or
// their String tokens) yields a string that waits for them.
func Sprintf(format string, args ...any) Output[string] {
	pos := caller(1)
	s := fmt.Sprintf(format, args...)
	b := &builder{where: "tether.Sprintf", pos: pos}
	t := b.value(reflect.ValueOf(s), "", 0)
	l := &lazy{stack: b.stack, deps: b.depList(), desc: "the string made by tether.Sprintf at " + posString(pos), ty: cty.String, tf: t.terraformNative}
	if len(b.diags) > 0 {
		l.err = b.diags[0]
	}
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) { return t.eval(sc) }
	return made(Output[string]{l: l})
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func posString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}
