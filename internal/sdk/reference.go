package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/refs"
)

// Reference describes where a value of type T is (an environment
// variable, a file, a secret store) without holding it. T is a primitive
// (string, a number, bool) or a struct. The program never sees the
// value: Tether resolves the reference inside the engine, in memory,
// right before the provider call that needs it, and plans, state, output,
// graphs and errors show its description, (reference env DB_PASSWORD).
//
// A reference can only be passed on whole:
//
//   - in a string argument of generated bindings, as its String form:
//     builtin.FileArgs{Content: ref.String()};
//   - as the Reference itself in an argument of type any, anywhere in its
//     value, or with tether.Set("name", ref);
//   - as an argument of another reference (EnvReference(FileReference(...)),
//     or a field declared as a Reference in a reference kind of your own);
//   - to Stack.Export, which shows its description.
//
// Resource arguments take references to strings, since the engine keeps
// the description in place of the value; a reference to another type is
// an argument of a reference that makes a string of it, and a reference
// to a struct stands for the struct by its fields (Fields).
//
// Anything that would need the value in the program is refused: a
// reference's String inside a longer string (concatenation, fmt.Sprintf),
// formatted with a verb other than %s and %v, passed to tether.Apply or
// to a data source, or in a field that does not declare reference support.
// Each is an error at the program's line naming the argument. References
// cannot be compared with ==; the compiler says so.
//
// The zero Reference stands for no value (null).
type Reference[T any] struct {
	ref *reference
	// References have no value in the program, so they cannot be
	// compared.
	_ [0]func()
}

type refKind int

const (
	// refReal is a reference the engine resolves.
	refReal refKind = iota
	// refPlain holds a known value given to Plain.
	refPlain
	// refResolved is an argument of a reference being resolved, handed
	// to a Resolve method with its value.
	refResolved
	// refBroken is a reference that could not be made; the lazy value's
	// err says why.
	refBroken
)

// reference is the type-erased part of a Reference.
type reference struct {
	kind  refKind
	r     *refs.Ref // refReal
	plain cty.Value // refPlain, refResolved
	lazy  *lazy
}

// refHolder is implemented by every Reference, whatever its T.
type refHolder interface {
	lazyHolder
	refInfo() *reference
	// refElem is T.
	refElem() reflect.Type
	// withInfo returns a Reference of the same T holding info.
	withInfo(*reference) reflect.Value
}

var refHolderType = reflect.TypeFor[refHolder]()

func (r Reference[T]) refInfo() *reference { return r.ref }
func (Reference[T]) refElem() reflect.Type { return reflect.TypeFor[T]() }
func (Reference[T]) withInfo(i *reference) reflect.Value {
	return reflect.ValueOf(Reference[T]{ref: i})
}
func zeroRef(t reflect.Type) refHolder { return reflect.Zero(t).Interface().(refHolder) }
func (r Reference[T]) lazyRef() *lazy {
	if r.ref == nil {
		return nullLazy
	}
	return r.ref.lazy
}

// newReference wraps a reference made at pos.
func newReference[T any](r *refs.Ref, pos hcl.Range) Reference[T] {
	return Reference[T]{ref: realInfo(r, pos)}
}

func realInfo(r *refs.Ref, pos hcl.Range) *reference {
	return &reference{kind: refReal, r: r, lazy: &lazy{
		desc: fmt.Sprintf("the reference %s made at %s", r.Description(), posString(pos)),
		ty:   cty.DynamicPseudoType,
		ref:  r,
		eval: func(config.Scope) (cty.Value, hcl.Diagnostics) { return refs.Val(r).Mark(refs.Operand), nil },
	}}
}

// brokenRef is a Reference that could not be made: d is reported where it
// is used.
func brokenRef[T any](d *hcl.Diagnostic) Reference[T] {
	return Reference[T]{ref: brokenInfo(d)}
}

func brokenInfo(d *hcl.Diagnostic) *reference {
	return &reference{kind: refBroken, lazy: &lazy{desc: "a reference that could not be made", ty: cty.DynamicPseudoType, err: d,
		eval: func(config.Scope) (cty.Value, hcl.Diagnostics) { return cty.DynamicVal, hcl.Diagnostics{d} }}}
}

// resolvedInfo is an argument given to a Resolve method: its value, which
// must not find its way back into a configuration.
func resolvedInfo(v cty.Value) *reference {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Resolved value used in a configuration",
		Detail: "A field declared as tether.Reference holds its resolved value only inside the Resolve method of a reference kind; it cannot be put into a resource, an export or another reference."}
	return &reference{kind: refResolved, plain: v, lazy: &lazy{desc: "a resolved reference argument", ty: cty.DynamicPseudoType, err: d,
		eval: func(config.Scope) (cty.Value, hcl.Diagnostics) { return cty.DynamicVal, hcl.Diagnostics{d} }}}
}

// String returns a token that stands for the reference in a string
// argument of generated bindings, passed on whole: Content: ref.String().
// Inside a longer string it is refused where the string is used. To the
// program the token is just text: it holds no value.
func (r Reference[T]) String() string {
	if r.ref == nil {
		return ""
	}
	return tokenFor(r.ref.lazy)
}

// Format makes fmt write the String token for %s and %v; any other verb
// writes a marker that the SDK reports as a mistake where the string is
// used, since a reference has no value to format.
func (r Reference[T]) Format(f fmt.State, verb rune) {
	_, hasWidth := f.Width()
	_, hasPrec := f.Precision()
	if (verb == 's' || verb == 'v') && !hasWidth && !hasPrec {
		io.WriteString(f, r.String())
		return
	}
	fmt.Fprintf(f, "%s%s}", refVerbPrefix, fmt.FormatString(f, verb))
}

// refVerbPrefix starts what Format writes for a verb it cannot honour.
const refVerbPrefix = "${tether:refverb:"

// Description is how the reference is shown in plans, state and
// messages: (reference env DB_PASSWORD). It never holds a resolved value.
func (r Reference[T]) Description() string {
	switch {
	case r.ref == nil:
		return "null"
	case r.ref.kind == refReal:
		return r.ref.r.Description()
	case r.ref.kind == refPlain:
		return plainDescription(r.ref.plain)
	case r.ref.kind == refResolved:
		return "(resolved value)"
	}
	return "(invalid reference)"
}

// plainDescription shows a plain value as a reference shows its
// arguments.
func plainDescription(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "(unknown)"
	case v.Type() == cty.String:
		return v.AsString()
	case v.Type() == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case v.Type() == cty.Bool:
		return fmt.Sprint(v.True())
	}
	return v.Type().FriendlyName()
}

// Resolve returns the value of a field declared as a Reference inside the
// Resolve method of a reference kind, where Tether has resolved it
// already, and the value of a Plain reference. Any other reference has no
// value in the program: Resolve returns an error saying so.
func (r Reference[T]) Resolve(ctx context.Context) (T, error) {
	var out T
	switch {
	case r.ref == nil:
		return out, errors.New("tether: Resolve called on a zero Reference")
	case r.ref.kind == refPlain || r.ref.kind == refResolved:
		if r.ref.plain.IsNull() {
			return out, nil
		}
		err := fromCty(r.ref.plain, reflect.ValueOf(&out).Elem())
		return out, err
	case r.ref.kind == refBroken:
		return out, errors.New(r.ref.lazy.err.Summary + ": " + r.ref.lazy.err.Detail)
	}
	return out, fmt.Errorf("%s cannot be resolved by the program: references are resolved only by the engine, right before the provider call that needs the value. Pass it on whole to a resource argument, or to a reference kind of your own, whose Resolve method receives its fields declared as tether.Reference resolved", r.Description())
}

// Plain makes a Reference that holds a known value, for a field or an
// argument declared as a Reference that is given a plain value. Its value
// is shown as written, in descriptions and plans alike.
func Plain[T any](v T) Reference[T] {
	pos := caller(1)
	b := &builder{where: "tether.Plain", pos: pos, noLazy: true}
	t := b.value(reflect.ValueOf(&v).Elem(), "", 0)
	switch {
	case len(b.refsAt) > 0:
		return brokenRef[T](diagAt(pos, "Reference given to tether.Plain", "tether.Plain was given %s: pass the Reference itself where a Reference is declared.", strings.Join(b.refsAt, " and ")))
	case len(b.lazyArgs) > 0:
		return brokenRef[T](diagAt(pos, "Lazy value given to tether.Plain", "tether.Plain was given %s, which is lazy; a plain value must be known while the program runs.", strings.Join(b.lazyArgs, " and ")))
	case len(b.diags) > 0:
		return brokenRef[T](b.diags[0])
	}
	val := t.val
	return Reference[T]{ref: &reference{kind: refPlain, plain: val, lazy: &lazy{
		desc: "the value given to tether.Plain at " + posString(pos), ty: ctyTypeOf(reflect.TypeFor[T]()),
		eval: func(config.Scope) (cty.Value, hcl.Diagnostics) { return val, nil },
	}}}
}

// StringOrReference is a string, or a reference to one: the argument of
// EnvReference and FileReference, so that references compose.
type StringOrReference interface {
	~string | Reference[string]
}

// EnvReference is a reference to the environment variable name, read by
// the process that runs the engine when a provider call needs it. An
// unset or empty variable fails that resource's operation, naming the
// variable and the resource. name may itself be a reference, resolved
// first: EnvReference(FileReference("name.txt")) reads the variable
// named in name.txt.
func EnvReference[S StringOrReference](name S) Reference[string] {
	return builtinReference("env", "tether.EnvReference", "the variable's name", caller(1), name)
}

// FileReference is a reference to the content of the file at path
// (without trailing newlines), relative to the folder the command runs
// in. path may itself be a reference, resolved first.
func FileReference[S StringOrReference](path S) Reference[string] {
	return builtinReference("file", "tether.FileReference", "the file's path", caller(1), path)
}

func builtinReference[S StringOrReference](kind, what, arg string, pos hcl.Range, v S) Reference[string] {
	var val cty.Value
	switch a := any(v).(type) {
	case Reference[string]:
		av, d := refArg(a.ref)
		if d != nil {
			return brokenRef[string](d)
		}
		val = av
	default:
		s := reflect.ValueOf(v).String()
		// The String form of a reference, on its own, is the reference:
		// these functions declare that they take references.
		if parts := splitTokens(s); len(parts) == 1 && parts[0].lazy.ref != nil {
			val = refs.Val(parts[0].lazy.ref)
			break
		}
		b := &builder{where: what, pos: pos, noLazy: true}
		t := b.value(reflect.ValueOf(s), "", 0)
		switch {
		case len(b.refsAt) > 0:
			return brokenRef[string](diagAt(pos, "Reference used inside a string", "%s was given a string that puts %s inside other text. Pass the reference itself: %s(ref).", what, b.refsMet[0].Description(), what))
		case len(b.lazyArgs) > 0:
			return brokenRef[string](diagAt(pos, "Lazy value given to a reference", "%s was given %s, which is lazy: the arguments of a reference must be known while the program runs, or be references themselves.", what, strings.Join(b.lazyArgs, " and ")))
		case len(b.diags) > 0:
			return brokenRef[string](b.diags[0])
		case s == "":
			return brokenRef[string](diagAt(pos, "Empty argument to a reference", "%s needs %s; it was given an empty string.", what, arg))
		}
		val = t.val
	}
	r, err := refs.New(kind, val)
	if err != nil {
		return brokenRef[string](diagAt(pos, "Cannot make a reference", "%s: %v", what, err))
	}
	return newReference[string](r, pos)
}

// refArg is the argument value of a Reference given where a reference is
// declared.
func refArg(info *reference) (cty.Value, *hcl.Diagnostic) {
	switch {
	case info == nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case info.kind == refReal:
		return refs.Val(info.r), nil
	case info.kind == refPlain:
		return info.plain, nil
	}
	return cty.NilVal, info.lazy.err
}

// Fields returns a T, which must be a struct, whose fields stand for the
// fields of the value the reference resolves to: a reference to a struct
// passed where the struct is expected. Each field must accept references:
// a field declared as tether.Reference[F] gets a reference to that field,
// and a string or *string field tagged `tether:"..."` (as in the argument
// structs of generated bindings, which only the SDK reads) gets its String
// form; a
// nested struct field whose fields all do is filled the same way. Any
// other field is an error that names it.
func (r Reference[T]) Fields() T {
	pos := caller(1)
	var out T
	dst := reflect.ValueOf(&out).Elem()
	t := dst.Type()
	switch {
	case t.Kind() != reflect.Struct:
		reportHere(diagAt(pos, "Fields of a reference to a non-struct", "Reference[%s].Fields stands for a struct by references to its fields; %s is not a struct.", t, t))
	case r.ref == nil:
		reportHere(diagAt(pos, "Fields of a zero Reference", "Fields was called on a zero Reference[%s], which refers to nothing.", t))
	case r.ref.kind == refBroken:
		reportHere(r.ref.lazy.err)
	case r.ref.kind == refPlain || r.ref.kind == refResolved:
		if err := fromCty(r.ref.plain, dst); err != nil {
			reportHere(diagAt(pos, "Fields of a plain value", "Reference[%s].Fields: %v", t, err))
		}
	default:
		if d := coerceFields(dst, r.ref.r, pos, t.String(), t.String()); d != nil {
			reportHere(d)
			var zero T
			return zero
		}
	}
	return out
}

// coerceFields fills the fields of the struct dst with references to the
// fields of what r resolves to, or says which field does not accept one.
func coerceFields(dst reflect.Value, r *refs.Ref, pos hcl.Range, root, path string) *hcl.Diagnostic {
	t := dst.Type()
	for _, f := range structFields(t) {
		if f.computed {
			continue
		}
		fv := dst.Field(f.index)
		ft := fv.Type()
		fr := refs.Field(r, f.name, valueType(ft))
		tagged := f.required || f.optional
		switch {
		case ft.Implements(refHolderType):
			fv.Set(zeroRef(ft).withInfo(realInfo(fr, pos)))
		case ft.Kind() == reflect.String && tagged:
			fv.SetString(tokenFor(realInfo(fr, pos).lazy))
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String && tagged:
			// An optional string field of generated bindings.
			tok := tokenFor(realInfo(fr, pos).lazy)
			fv.Set(reflect.ValueOf(&tok).Convert(ft))
		case ft.Kind() == reflect.Struct && ft != numberType && !ft.Implements(lazyHolderType):
			if d := coerceFields(fv, fr, pos, root, path+"."+f.goName); d != nil {
				return d
			}
		default:
			how := fmt.Sprintf("declare it as tether.Reference[%s]", ft)
			if tagged {
				how = fmt.Sprintf("give that argument with tether.Set(%q, ref) instead", f.name)
			}
			return diagAt(pos, "Field does not accept references",
				"A reference to %s can stand for the struct only when every field accepts a reference, and %s.%s (%s) does not: %s. A field accepts references when it is declared as tether.Reference[T], or is a string field tagged `tether:\"...\"`.", root, path, f.goName, ft, how)
		}
	}
	return nil
}

// Resolver is implemented by the Go types that define kinds of reference
// of their own (see RegisterReference): the type's exported fields are
// the reference's arguments, and Resolve obtains the value from them.
type Resolver[T any] interface {
	Resolve(ctx context.Context) (T, error)
}

// kinds are the reference kinds registered from Go.
var kinds = struct {
	sync.Mutex
	byType map[reflect.Type]*kindInfo
	byName map[string]*kindInfo
	// diags are registration mistakes, reported by every stack.
	diags hcl.Diagnostics
}{byType: map[reflect.Type]*kindInfo{}, byName: map[string]*kindInfo{}}

type kindInfo struct {
	name string
	typ  reflect.Type
	pos  hcl.Range
}

// RegisterReference makes the Go type R a kind of reference named kind,
// resolving to a T (a primitive or a struct). R is a struct, or a pointer
// to one, whose exported fields are the reference's arguments, shown in
// its description: plain values, or references in fields declared as
// tether.Reference[F], which is how a kind declares that it accepts
// references. Make references of the kind with NewReference.
//
// When a provider call needs the value, the engine resolves the
// arguments that are references first, then calls R's Resolve with a
// copy of the arguments in which those fields hold their values (read
// them with the field's Resolve method). Resolve runs in the process that
// runs the engine, may run more than once and concurrently, and its
// result is never stored or shown.
//
//	type Vault struct {
//		Path  string
//		Token tether.Reference[string]
//	}
//
//	func (v Vault) Resolve(ctx context.Context) (string, error) {
//		token, err := v.Token.Resolve(ctx)
//		...
//	}
//
//	func init() { tether.RegisterReference[Vault]("vault") }
//
// Call it before Main, typically from init. Mistakes (an invalid or taken name, an unsuitable type) are reported by
// Main, at the line that registered.
func RegisterReference[R Resolver[T], T any](kind string) {
	pos := caller(1)
	rt := reflect.TypeFor[R]()
	vt := reflect.TypeFor[T]()
	kinds.Lock()
	defer kinds.Unlock()
	fail := func(summary, format string, args ...any) {
		d := diagAt(pos, summary, format, args...)
		kinds.diags = append(kinds.diags, d)
		// Registered while a stack is built: that stack reports it too.
		current.Lock()
		st := current.stack
		current.Unlock()
		if st != nil {
			st.mu.Lock()
			if !st.sealed {
				st.report(d)
			}
			st.mu.Unlock()
		}
	}
	st := rt
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if prev, ok := kinds.byName[kind]; ok {
		if prev.typ != rt {
			fail(fmt.Sprintf("Reference kind %q registered twice", kind), "tether.RegisterReference at %s registers %s as %q, which %s at %s already is.", posString(pos), rt, kind, prev.typ, posString(prev.pos))
		}
		return
	}
	if prev, ok := kinds.byType[rt]; ok {
		fail(fmt.Sprintf("%s registered twice", rt), "tether.RegisterReference at %s registers %s as %q, but it is registered as %q at %s already.", posString(pos), rt, kind, prev.name, posString(prev.pos))
		return
	}
	switch {
	case !hclsyntax.ValidIdentifier(kind):
		fail(fmt.Sprintf("Invalid reference kind name %q", kind), "A reference kind's name must start with a letter or underscore and hold only letters, digits, underscores and dashes; HCL names it in reference(%q, ...).", kind)
		return
	case slices.Contains(refs.Kinds(), kind):
		var builtin []string
		for _, k := range refs.Kinds() {
			if kinds.byName[k] == nil {
				builtin = append(builtin, k)
			}
		}
		fail(fmt.Sprintf("Reference kind %q is built in", kind), "tether.RegisterReference cannot register %s as %q: Tether's own kinds are %s. Choose another name.", rt, kind, strings.Join(builtin, ", "))
		return
	case st.Kind() != reflect.Struct || rt.Implements(refHolderType):
		fail("Invalid reference kind type "+rt.String(), "tether.RegisterReference needs a struct type, or a pointer to one, whose fields are the reference's arguments; %s is not.", rt)
		return
	case !valueTypeOK(vt):
		fail("Invalid reference value type "+vt.String(), "%s resolves to a %s; a reference resolves to a primitive (string, a number, bool) or a struct.", rt, vt)
		return
	}
	for _, f := range structFields(st) {
		ft := st.Field(f.index).Type
		if ft.Implements(lazyHolderType) && !ft.Implements(refHolderType) {
			fail("Lazy field in reference kind "+rt.String(), "%s.%s is a %s. The arguments of a reference are known while the program runs, or are references: declare it as tether.Reference[F] to take a reference.", st, f.goName, ft)
			return
		}
	}
	info := &kindInfo{name: kind, typ: rt, pos: pos}
	kinds.byName[kind] = info
	kinds.byType[rt] = info
	refs.Register(kind, valueType(vt), resolverFor[R, T](kind, st, rt.Kind() == reflect.Pointer))
}

func valueTypeOK(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Struct,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return !t.Implements(lazyHolderType)
	}
	return false
}

// registrationDiags are the registration mistakes, for a new stack.
func registrationDiags() hcl.Diagnostics {
	kinds.Lock()
	defer kinds.Unlock()
	return slices.Clone(kinds.diags)
}

// resolverFor adapts R's Resolve to the engine's resolver: the resolved
// arguments become a fresh R, its result a value of the kind's type.
func resolverFor[R Resolver[T], T any](kind string, st reflect.Type, ptr bool) refs.Resolver {
	fields := structFields(st)
	ty := ctyTypeOf(reflect.TypeFor[T]())
	return func(ctx context.Context, args []cty.Value) (cty.Value, error) {
		sv := reflect.New(st)
		for i, f := range fields {
			if i >= len(args) {
				break
			}
			if err := fromCty(args[i], sv.Elem().Field(f.index)); err != nil {
				return cty.NilVal, fmt.Errorf("argument %s: %v", f.goName, err)
			}
		}
		var r R
		if ptr {
			r = sv.Interface().(R)
		} else {
			r = sv.Elem().Interface().(R)
		}
		res, err := resolveSafely(ctx, kind, r)
		if err != nil {
			return cty.NilVal, err
		}
		b := &builder{where: "the Resolve method of " + kind, noLazy: true, resolving: true}
		t := b.value(reflect.ValueOf(&res).Elem(), "", 0)
		if len(b.lazyArgs) > 0 || len(b.diags) > 0 || t.kind != tKnown {
			return cty.NilVal, fmt.Errorf("the Resolve method of %s returned a value holding a reference or a lazy value; it must return plain values", st)
		}
		cv, err := convert.Convert(t.val, ty)
		if err != nil {
			return cty.NilVal, fmt.Errorf("the Resolve method of %s returned a value that does not fit %s: %v", st, reflect.TypeFor[T](), err)
		}
		return cv, nil
	}
}

func resolveSafely[R Resolver[T], T any](ctx context.Context, kind string, r R) (res T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the Resolve method of reference kind %s panicked: %v", kind, p)
		}
	}()
	return r.Resolve(ctx)
}

// NewReference makes a reference of the kind registered for R (see
// RegisterReference), with args as its arguments. A type that is not
// registered, an argument holding a lazy value, or a reference in a field
// not declared as tether.Reference is an error at the line that uses the
// reference.
func NewReference[R Resolver[T], T any](args R) Reference[T] {
	pos := caller(1)
	rt := reflect.TypeFor[R]()
	kinds.Lock()
	info := kinds.byType[rt]
	var names []string
	for n := range kinds.byName {
		names = append(names, n)
	}
	kinds.Unlock()
	if info == nil {
		known := "none is"
		if len(names) > 0 {
			slices.Sort(names)
			known = strings.Join(names, ", ") + " are"
		}
		return brokenRef[T](diagAt(pos, "No reference kind registered for the type",
			"tether.NewReference was given a %s, but no reference kind is registered for that type (%s registered from Go). Register it once, before tether.Main: tether.RegisterReference[%s](\"NAME\").", rt, known, rt))
	}
	rv := reflect.ValueOf(&args).Elem()
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return brokenRef[T](diagAt(pos, "Nil reference arguments", "tether.NewReference was given a nil %s.", rt))
		}
		rv = rv.Elem()
	}
	var vals []cty.Value
	for _, f := range structFields(rv.Type()) {
		fv := rv.Field(f.index)
		where := fmt.Sprintf("%s.%s", rv.Type(), f.goName)
		if fv.Type().Implements(refHolderType) {
			v, d := refArg(fv.Interface().(refHolder).refInfo())
			if d != nil {
				return brokenRef[T](d)
			}
			if v.Type() == cty.DynamicPseudoType && v.IsNull() {
				v = cty.NullVal(valueType(fv.Type()))
			}
			vals = append(vals, v)
			continue
		}
		b := &builder{where: "tether.NewReference", pos: pos, noLazy: true}
		t := b.value(fv, "", 0)
		switch {
		case len(b.refsAt) > 0:
			return brokenRef[T](diagAt(pos, "Field does not accept references",
				"tether.NewReference was given the reference %s in %s, which is declared as %s and so does not accept references. A reference kind accepts a reference only in a field that declares it: declare %s as tether.Reference[%s], and read it in Resolve with its Resolve method.",
				b.refsMet[0].Description(), where, fv.Type(), f.goName, refFieldType(fv.Type())))
		case len(b.lazyArgs) > 0:
			return brokenRef[T](diagAt(pos, "Lazy value in a reference's arguments", "tether.NewReference was given %s in %s, which is lazy: the arguments of a reference must be known while the program runs, or be references.", strings.Join(b.lazyArgs, " and "), where))
		case len(b.diags) > 0:
			return brokenRef[T](b.diags[0])
		}
		vals = append(vals, t.val)
	}
	r, err := refs.New(info.name, vals...)
	if err != nil {
		return brokenRef[T](diagAt(pos, "Cannot make a reference", "%v", err))
	}
	return newReference[T](r, pos)
}

func refFieldType(t reflect.Type) string {
	if t.Kind() == reflect.String {
		return "string"
	}
	return t.String()
}

// reportHere reports a mistake in the stack being built.
func reportHere(d *hcl.Diagnostic) {
	current.Lock()
	st := current.stack
	current.Unlock()
	if st == nil {
		panic(fmt.Sprintf("tether: %s: %s", d.Summary, d.Detail))
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.report(d)
}

// valueType is the cty type of the value a Reference[T] resolves to, for
// a Go type T: ctyTypeOf, with the fields declared as references taking
// the type they refer to, and no optional attributes.
func valueType(t reflect.Type) cty.Type {
	return typeOf(t, true).WithoutOptionalAttributesDeep()
}
