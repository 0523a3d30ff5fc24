package tether

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/refs"
)

// A tmpl is a Go value turned into what Tether evaluates: known parts are
// cty values already, lazy parts are computed from the engine's values
// each time the node is evaluated.
type tmpl struct {
	kind  tkind
	val   cty.Value  // tKnown
	lazy  *lazy      // tLazy
	parts []tmplPart // tConcat
	elems []*tmpl    // tTuple
	names []string   // tObject, sorted
	attrs []*tmpl    // tObject, by names
	// site is where a tConcat string was given, for messages.
	site *site
}

// site is an argument given to an SDK function: where, and at what path.
type site struct {
	where string
	pos   hcl.Range
	path  string
}

type tkind int

const (
	tKnown tkind = iota
	tLazy
	tConcat // a string with tokens in it
	tTuple
	tObject
)

type tmplPart struct {
	lit  string
	lazy *lazy
}

func known(v cty.Value) *tmpl { return &tmpl{kind: tKnown, val: v} }

var nullTmpl = known(cty.NullVal(cty.DynamicPseudoType))

// builder turns Go values into templates, collecting dependencies and
// reporting mistakes at the position of the SDK call that was given them.
type builder struct {
	where string // the SDK function the value was given to: builtin.NewFile
	pos   hcl.Range
	// stack is the stack of the lazy values met so far; want, when set,
	// is the only stack they may come from.
	stack *Stack
	want  *Stack
	deps  map[string]bool
	diags hcl.Diagnostics
	// noLazy, when set, refuses lazy values: they are listed in lazyArgs
	// for the caller to explain.
	noLazy bool
	// lazyArgs lists the lazy values met, by argument path, for the
	// direct form's message.
	lazyArgs []string
	// refsAt lists the references met, by argument path, and refsMet
	// the references themselves, for the callers that cannot take them.
	refsAt  []string
	refsMet []*refs.Ref
	// resolving takes the arguments a Resolve method was given as the
	// plain values they hold: it converts what Resolve returns.
	resolving bool
}

func (b *builder) errorf(summary, format string, args ...any) {
	b.diags = append(b.diags, diagAt(b.pos, summary, format, args...))
}

func (b *builder) depList() []string { return sortedSet(b.deps) }

// use records a lazy value met at path.
func (b *builder) use(l *lazy, path string) bool {
	if l.err != nil {
		b.diags = append(b.diags, l.err)
		return false
	}
	if l.ref != nil {
		b.refsAt = append(b.refsAt, fmt.Sprintf("the reference %s at %s", l.ref.Description(), displayPath(path)))
		b.refsMet = append(b.refsMet, l.ref)
	}
	if b.noLazy {
		b.lazyArgs = append(b.lazyArgs, fmt.Sprintf("%s (%s)", displayPath(path), l.desc))
		return false
	}
	if l.stack != nil {
		if b.want != nil && l.stack != b.want {
			b.errorf("Value from another stack", "%s was given %s at %s, which comes from another stack. A value can only be used in the stack whose resources it comes from.", b.where, l.desc, displayPath(path))
			return false
		}
		if b.stack != nil && b.stack != l.stack {
			b.errorf("Values of two stacks combined", "%s was given values of two different stacks (%s at %s among them).", b.where, l.desc, displayPath(path))
			return false
		}
		b.stack = l.stack
	}
	if b.deps == nil {
		b.deps = map[string]bool{}
	}
	for _, d := range l.deps {
		b.deps[d] = true
	}
	return true
}

func displayPath(p string) string {
	if p == "" {
		return "the value"
	}
	return strings.TrimPrefix(p, ".")
}

var lazyHolderType = reflect.TypeFor[lazyHolder]()
var dependableType = reflect.TypeFor[Dependable]()

// maxDepth stops a Go value that refers to itself.
const maxDepth = 64

// value turns a Go value into a template. path is where it sits in the
// argument being built (.keepers["a"]), for messages.
func (b *builder) value(rv reflect.Value, path string, depth int) *tmpl {
	if depth > maxDepth {
		b.errorf("Value nested too deeply", "%s was given a value nested more than %d levels deep at %s; does it refer to itself?", b.where, maxDepth, displayPath(path))
		return nullTmpl
	}
	if !rv.IsValid() {
		return nullTmpl
	}
	if rv.Type().Implements(refHolderType) {
		info := rv.Interface().(refHolder).refInfo()
		switch {
		case info == nil:
			return nullTmpl
		case info.kind == refPlain, info.kind == refResolved && b.resolving:
			return known(info.plain)
		}
		if !b.use(info.lazy, path) {
			return nullTmpl
		}
		return &tmpl{kind: tLazy, lazy: info.lazy}
	}
	if rv.Type().Implements(lazyHolderType) {
		if rv.Kind() == reflect.Interface && rv.IsNil() {
			return nullTmpl
		}
		l := rv.Interface().(lazyHolder).lazyRef()
		if !b.use(l, path) {
			return nullTmpl
		}
		return &tmpl{kind: tLazy, lazy: l}
	}
	if rv.Kind() != reflect.Interface && rv.Type().Implements(dependableType) {
		b.errorf("A resource is not a value", "%s was given %s at %s. A resource, data source or component cannot be used as a value: pass one of its attributes (such as its ID()) or, to wait for it, tether.DependsOn.", b.where, rv.Type(), displayPath(path))
		return nullTmpl
	}
	switch rv.Kind() {
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return nullTmpl
		}
		return b.value(rv.Elem(), path, depth+1)
	case reflect.String:
		return b.str(rv.String(), path)
	case reflect.Bool:
		return known(cty.BoolVal(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return known(cty.NumberIntVal(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return known(cty.NumberUIntVal(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			b.errorf("Invalid number", "%s was given %v at %s; Terraform numbers cannot be NaN or infinite.", b.where, f, displayPath(path))
			return nullTmpl
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return known(cty.NumberIntVal(int64(f)))
		}
		return known(cty.NumberVal(new(big.Float).SetFloat64(f)))
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nullTmpl
		}
		elems := make([]*tmpl, rv.Len())
		for i := range elems {
			elems[i] = b.value(rv.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1)
		}
		return tuple(elems)
	case reflect.Map:
		if rv.IsNil() {
			return nullTmpl
		}
		if rv.Type().Key().Kind() != reflect.String {
			b.errorf("Invalid map", "%s was given a map with %s keys at %s; only string keys can be used.", b.where, rv.Type().Key(), displayPath(path))
			return nullTmpl
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		attrs := make([]*tmpl, len(keys))
		for i, k := range keys {
			if parts := splitTokens(k); parts != nil {
				b.errorf("Lazy map key", "%s was given a map key at %s that holds a lazy value (%s). Keys must be known while the program runs, because they decide the shape of the value; use the lazy value as a map value instead.", b.where, displayPath(path), firstLazy(parts).desc)
				return nullTmpl
			}
			attrs[i] = b.value(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())), path+"["+strconv.Quote(k)+"]", depth+1)
		}
		return object(keys, attrs)
	case reflect.Struct:
		fields := structFields(rv.Type())
		var names []string
		var attrs []*tmpl
		for _, f := range fields {
			fv := rv.Field(f.index)
			fpath := path + "." + f.name
			switch {
			case f.computed:
				continue
			case f.required && nilable(fv) && fv.IsNil():
				in := ""
				if path != "" {
					in = " in " + displayPath(path)
				}
				b.errorf(fmt.Sprintf("Missing required field %s", f.goName), "%s needs %s (the argument %s)%s, but it is nil.", b.where, f.goName, f.name, in)
				continue
			case f.optional && fv.IsZero():
				continue
			}
			names = append(names, f.name)
			attrs = append(attrs, b.value(fv, fpath, depth+1))
		}
		return object(names, attrs)
	}
	b.errorf("Unsupported value", "%s was given a %s at %s, which has no Terraform equivalent.", b.where, rv.Type(), displayPath(path))
	return nullTmpl
}

func nilable(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

func firstLazy(parts []tokenPart) *lazy {
	for _, p := range parts {
		if p.lazy != nil {
			return p.lazy
		}
	}
	return nullLazy
}

// str turns a string into a template, resolving the tokens in it.
func (b *builder) str(s, path string) *tmpl {
	if i := strings.Index(s, badVerbPrefix); i >= 0 {
		verb, _, _ := strings.Cut(s[i+len(badVerbPrefix):], "}")
		b.errorf("Output formatted with "+verb, "%s was given a string at %s made by formatting an Output with %s. An Output is not known while the program runs, so only %%s and %%v work, without width or precision: they put a token in its place. To format the value itself, use tether.Apply, for example tether.Apply(out, func(n float64) string { return fmt.Sprintf(%q, n) }).", b.where, displayPath(path), verb, verb)
		return nullTmpl
	}
	if i := strings.Index(s, refVerbPrefix); i >= 0 {
		verb, _, _ := strings.Cut(s[i+len(refVerbPrefix):], "}")
		b.errorf("Reference formatted with "+verb, "%s was given a string at %s made by formatting a reference with %s. A reference has no value in the program, so it cannot be formatted; pass it on whole, as its String form.", b.where, displayPath(path), verb)
		return nullTmpl
	}
	parts := splitTokens(s)
	if !b.wholeTokens(s, parts, path) {
		return nullTmpl
	}
	if parts == nil {
		return known(cty.StringVal(s))
	}
	for _, p := range parts {
		if p.lazy == nil || p.lazy.ref == nil {
			continue
		}
		r := p.lazy.ref
		if len(parts) > 1 {
			b.errorf("Reference used inside a string", "%s was given a string at %s that puts the reference %s inside other text (concatenation or fmt.Sprintf). A reference has no value in the program: Tether resolves it only for the provider call that needs it, so it can only be passed on whole, as ref.String(). To build a string from a referenced value, do it in the Resolve method of a reference kind of your own (tether.RegisterReference).", b.where, displayPath(path), r.Description())
			return nullTmpl
		}
		if r.Type != cty.String && r.Type != cty.DynamicPseudoType {
			b.errorf("Reference to a "+r.Type.FriendlyName()+" in a string", "%s was given at %s the String form of the reference %s, which resolves to a %s. Only a Reference[string] goes in a string field; give this one with tether.Set(\"NAME\", ref).", b.where, displayPath(path), r.Description(), r.Type.FriendlyName())
			return nullTmpl
		}
		if !b.use(p.lazy, path) {
			return nullTmpl
		}
		return &tmpl{kind: tLazy, lazy: p.lazy}
	}
	t := &tmpl{kind: tConcat, site: &site{where: b.where, pos: b.pos, path: path}}
	for _, p := range parts {
		if p.lazy != nil && !b.use(p.lazy, path) {
			return nullTmpl
		}
		t.parts = append(t.parts, tmplPart{lit: p.lit, lazy: p.lazy})
	}
	return t
}

// wholeTokens reports a string whose text outside its tokens holds a piece
// of a token that a string operation changed, which would otherwise be
// deployed as it is.
func (b *builder) wholeTokens(s string, parts []tokenPart, path string) bool {
	text := s
	if parts != nil {
		var lits []string
		for _, p := range parts {
			if p.lazy == nil {
				lits = append(lits, p.lit)
			}
		}
		text = strings.Join(lits, "\x00")
	}
	piece, l, made, broken := brokenToken(text)
	if !broken {
		return true
	}
	what := "a token"
	if l != nil {
		what = fmt.Sprintf("the token of %s, made at %s,", l.desc, posString(made))
	}
	b.errorf("Token changed by a string operation",
		"%s was given a string at %s that holds a piece of a token (%q). A token stands for an Output inside a string, and Tether puts the value in its place only when it arrives whole; %s was changed after it was made, by an operation such as strings.ToUpper, slicing or strings.Replace. Apply the operation to the value instead: tether.Apply(out, strings.ToUpper), or tether.Apply(out, func(s string) string { return s[:5] }).",
		b.where, displayPath(path), piece, what)
	return false
}

func tuple(elems []*tmpl) *tmpl {
	vals := make([]cty.Value, len(elems))
	for i, e := range elems {
		if e.kind != tKnown {
			return &tmpl{kind: tTuple, elems: elems}
		}
		vals[i] = e.val
	}
	return known(cty.TupleVal(vals))
}

func object(names []string, attrs []*tmpl) *tmpl {
	vals := make(map[string]cty.Value, len(names))
	for i, a := range attrs {
		if a.kind != tKnown {
			return &tmpl{kind: tObject, names: names, attrs: attrs}
		}
		vals[names[i]] = a.val
	}
	return known(cty.ObjectVal(vals))
}

// eval computes the template's value from the engine's values.
func (t *tmpl) eval(sc config.Scope) (cty.Value, hcl.Diagnostics) {
	switch t.kind {
	case tKnown:
		return t.val, nil
	case tLazy:
		return t.lazy.eval(sc)
	case tConcat:
		return t.concat(sc)
	case tTuple:
		var diags hcl.Diagnostics
		vals := make([]cty.Value, len(t.elems))
		for i, e := range t.elems {
			v, d := e.eval(sc)
			diags = append(diags, d...)
			vals[i] = v
		}
		return cty.TupleVal(vals), diags
	case tObject:
		var diags hcl.Diagnostics
		vals := make(map[string]cty.Value, len(t.names))
		for i, a := range t.attrs {
			v, d := a.eval(sc)
			diags = append(diags, d...)
			vals[t.names[i]] = v
		}
		return cty.ObjectVal(vals), diags
	}
	return cty.DynamicVal, nil
}

// concat evaluates a string with tokens: each value is converted to a
// string; an unknown one makes the whole string unknown, a sensitive one
// makes it sensitive.
func (t *tmpl) concat(sc config.Scope) (cty.Value, hcl.Diagnostics) {
	var b strings.Builder
	var diags hcl.Diagnostics
	marks := cty.ValueMarks{}
	unknown := false
	for _, p := range t.parts {
		if p.lazy == nil {
			b.WriteString(p.lit)
			continue
		}
		v, d := p.lazy.eval(sc)
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.UnknownVal(cty.String), diags
		}
		if r, _, ok := refs.In(v); ok {
			if len(t.parts) == 1 {
				// A reference passed on whole, through an Output.
				return v, diags
			}
			what := "a value computed from a reference"
			if r != nil {
				what = "the reference " + r.Description()
			}
			return cty.UnknownVal(cty.String), append(diags, diagAt(t.site.pos, "Reference used inside a string",
				"%s was given a string at %s that puts %s, which holds %s, inside other text (concatenation or fmt.Sprintf). A reference has no value in the program, so it can only be passed on whole.",
				t.site.where, displayPath(t.site.path), p.lazy.desc, what))
		}
		uv, m := v.UnmarkDeep()
		for k := range m {
			marks[k] = struct{}{}
		}
		if !uv.IsWhollyKnown() {
			unknown = true
			continue
		}
		if uv.IsNull() {
			return cty.UnknownVal(cty.String), append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
				Summary: "Null value in a string",
				Detail:  fmt.Sprintf("%s is null, so it cannot be put into a string.", p.lazy.desc)})
		}
		sv, err := convert.Convert(uv, cty.String)
		if err != nil {
			return cty.UnknownVal(cty.String), append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
				Summary: "Value cannot be put into a string",
				Detail:  fmt.Sprintf("%s is a %s, which has no string form; a String() token only works for strings, numbers and booleans. Use tether.Apply to make a string from it.", p.lazy.desc, uv.Type().FriendlyName())})
		}
		b.WriteString(sv.AsString())
	}
	if unknown {
		return cty.UnknownVal(cty.String).WithMarks(marks), diags
	}
	return cty.StringVal(b.String()).WithMarks(marks), diags
}

// conform makes a value built from Go into an object of a schema block's
// implied type: attributes converted to their types, absent ones null,
// nested blocks in their collections, empty when absent.
func conform(v cty.Value, b *provider.Block, path cty.Path) (cty.Value, error) {
	ty := b.ImpliedType()
	uv, m := v.Unmark()
	if !uv.IsKnown() {
		return cty.UnknownVal(ty).WithMarks(m), nil
	}
	if uv.IsNull() {
		uv = cty.EmptyObjectVal
	}
	if !uv.Type().IsObjectType() {
		return cty.NilVal, path.NewErrorf("an object is required, not a %s", uv.Type().FriendlyName())
	}
	get := func(name string) cty.Value {
		if uv.Type().HasAttribute(name) {
			return uv.GetAttr(name)
		}
		return cty.NullVal(cty.DynamicPseudoType)
	}
	for name := range uv.Type().AttributeTypes() {
		_, isAttr := b.Attributes[name]
		_, isBlock := b.BlockTypes[name]
		if !isAttr && !isBlock {
			return cty.NilVal, path.GetAttr(name).NewErrorf("there is no argument or block named %q here", name)
		}
	}
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		cv, err := convert.Convert(get(name), a.Type)
		if err != nil {
			return cty.NilVal, path.GetAttr(name).NewError(err)
		}
		attrs[name] = cv
	}
	for name, nb := range b.BlockTypes {
		cv, err := conformBlocks(get(name), nb, path.GetAttr(name))
		if err != nil {
			return cty.NilVal, err
		}
		attrs[name] = cv
	}
	return cty.ObjectVal(attrs).WithMarks(m), nil
}

func conformBlocks(v cty.Value, nb *provider.NestedBlock, path cty.Path) (cty.Value, error) {
	ety := nb.Block.ImpliedType()
	uv, m := v.Unmark()
	if !uv.IsKnown() {
		return cty.UnknownVal(nestedType(nb)).WithMarks(m), nil
	}
	switch nb.Nesting {
	case provider.NestingSingle, provider.NestingGroup:
		if uv.IsNull() && nb.Nesting == provider.NestingSingle {
			return cty.NullVal(ety), nil
		}
		cv, err := conform(uv, &nb.Block, path)
		return cv.WithMarks(m), err
	case provider.NestingMap:
		if uv.IsNull() || uv.LengthInt() == 0 {
			if ety.HasDynamicTypes() {
				return cty.EmptyObjectVal, nil
			}
			return cty.MapValEmpty(ety), nil
		}
		if !uv.CanIterateElements() {
			return cty.NilVal, path.NewErrorf("a map of blocks is required, not a %s", uv.Type().FriendlyName())
		}
		elems := map[string]cty.Value{}
		for it := uv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			cv, err := conform(e, &nb.Block, path.Index(k))
			if err != nil {
				return cty.NilVal, err
			}
			elems[k.AsString()] = cv
		}
		if ety.HasDynamicTypes() {
			return cty.ObjectVal(elems).WithMarks(m), nil
		}
		return cty.MapVal(elems).WithMarks(m), nil
	}
	// Lists and sets.
	var elems []cty.Value
	if !uv.IsNull() {
		if !uv.CanIterateElements() || uv.Type().IsObjectType() || uv.Type().IsMapType() {
			return cty.NilVal, path.NewErrorf("a list of blocks is required, not a %s", uv.Type().FriendlyName())
		}
		for it := uv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			cv, err := conform(e, &nb.Block, path.Index(k))
			if err != nil {
				return cty.NilVal, err
			}
			elems = append(elems, cv)
		}
	}
	if nb.MaxItems > 0 && len(elems) > nb.MaxItems {
		return cty.NilVal, path.NewErrorf("at most %d blocks are allowed, got %d", nb.MaxItems, len(elems))
	}
	switch {
	case nb.Nesting == provider.NestingList && ety.HasDynamicTypes():
		return cty.TupleVal(elems).WithMarks(m), nil
	case len(elems) == 0 && nb.Nesting == provider.NestingSet:
		return cty.SetValEmpty(ety), nil
	case len(elems) == 0:
		return cty.ListValEmpty(ety), nil
	case nb.Nesting == provider.NestingSet:
		return cty.SetVal(elems).WithMarks(m), nil
	}
	return cty.ListVal(elems).WithMarks(m), nil
}

func nestedType(nb *provider.NestedBlock) cty.Type {
	return (&provider.Block{BlockTypes: map[string]*provider.NestedBlock{"x": nb}}).ImpliedType().AttributeType("x")
}

// fieldInfo is how a struct field maps to an attribute.
type fieldInfo struct {
	index    int
	goName   string
	name     string
	required bool
	optional bool
	computed bool
}

var fieldCache sync.Map // reflect.Type -> []fieldInfo

// structFields lists the fields of a struct that make attributes: those
// tagged `tether:"name[,required|computed]"` (generated bindings), and in
// untagged structs every exported field under its Go name.
func structFields(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		fi := fieldInfo{index: i, goName: sf.Name, name: sf.Name}
		if tag, ok := sf.Tag.Lookup("tether"); ok {
			name, opt, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			fi.name = name
			switch opt {
			case "required":
				fi.required = true
			case "computed":
				fi.computed = true
			default:
				fi.optional = true
			}
		}
		out = append(out, fi)
	}
	fieldCache.Store(t, out)
	return out
}

// ctyTypeOf is the cty type that values of a Go type convert to. Object
// types in it have optional attributes, for conversion; values of it are
// made with its WithoutOptionalAttributesDeep.
func ctyTypeOf(t reflect.Type) cty.Type { return typeOf(t, false) }

// typeOf is ctyTypeOf; resolved makes a Reference[T] stand for T, as in
// the value a reference resolves to, instead of any type.
func typeOf(t reflect.Type, resolved bool) cty.Type {
	if resolved && t.Implements(refHolderType) {
		return typeOf(zeroRef(t).refElem(), true)
	}
	switch t.Kind() {
	case reflect.String:
		return cty.String
	case reflect.Bool:
		return cty.Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return cty.Number
	case reflect.Pointer:
		return typeOf(t.Elem(), resolved)
	case reflect.Slice, reflect.Array:
		return cty.List(typeOf(t.Elem(), resolved))
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return cty.Map(typeOf(t.Elem(), resolved))
		}
	case reflect.Struct:
		if t.Implements(lazyHolderType) {
			return cty.DynamicPseudoType
		}
		// Every attribute is optional, so that a struct built with zero
		// fields left out converts.
		attrs := map[string]cty.Type{}
		var names []string
		for _, f := range structFields(t) {
			attrs[f.name] = typeOf(t.Field(f.index).Type, resolved)
			names = append(names, f.name)
		}
		return cty.ObjectWithOptionalAttrs(attrs, names)
	}
	return cty.DynamicPseudoType
}

// fromCty stores a known, unmarked value into a Go variable.
func fromCty(v cty.Value, dst reflect.Value) error {
	if v.IsNull() {
		dst.SetZero()
		return nil
	}
	if !v.IsKnown() {
		return fmt.Errorf("it is not known yet")
	}
	t := dst.Type()
	if t.Implements(refHolderType) {
		// An argument of a reference being resolved, or a field of a
		// resolved struct: it holds its value.
		dst.Set(zeroRef(t).withInfo(resolvedInfo(v)))
		return nil
	}
	if t.Implements(lazyHolderType) {
		return fmt.Errorf("%s cannot receive a value: functions given to Apply get plain values, so use %s's type argument instead", t, t)
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return fmt.Errorf("cannot store into %s", t)
		}
		g, err := natural(v)
		if err != nil {
			return err
		}
		if g != nil {
			dst.Set(reflect.ValueOf(g))
		}
		return nil
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := fromCty(v, p.Elem()); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.String:
		sv, err := convert.Convert(v, cty.String)
		if err != nil {
			return err
		}
		dst.SetString(sv.AsString())
		return nil
	case reflect.Bool:
		bv, err := convert.Convert(v, cty.Bool)
		if err != nil {
			return err
		}
		dst.SetBool(bv.True())
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return err
		}
		i, acc := nv.AsBigFloat().Int64()
		if acc != big.Exact || dst.OverflowInt(i) {
			return fmt.Errorf("%s is not a whole number that fits %s", nv.AsBigFloat().Text('g', -1), t)
		}
		dst.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return err
		}
		u, acc := nv.AsBigFloat().Uint64()
		if acc != big.Exact || dst.OverflowUint(u) {
			return fmt.Errorf("%s is not a whole number that fits %s", nv.AsBigFloat().Text('g', -1), t)
		}
		dst.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return err
		}
		f, _ := nv.AsBigFloat().Float64()
		dst.SetFloat(f)
		return nil
	case reflect.Slice:
		if !v.CanIterateElements() || v.Type().IsObjectType() || v.Type().IsMapType() {
			return fmt.Errorf("a list is needed for %s, not a %s", t, v.Type().FriendlyName())
		}
		s := reflect.MakeSlice(t, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			ev := reflect.New(t.Elem()).Elem()
			if err := fromCty(e, ev); err != nil {
				return err
			}
			s = reflect.Append(s, ev)
		}
		dst.Set(s)
		return nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String || !(v.Type().IsMapType() || v.Type().IsObjectType()) {
			return fmt.Errorf("a map is needed for %s, not a %s", t, v.Type().FriendlyName())
		}
		m := reflect.MakeMapWithSize(t, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			ev := reflect.New(t.Elem()).Elem()
			if err := fromCty(e, ev); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.AsString()).Convert(t.Key()), ev)
		}
		dst.Set(m)
		return nil
	case reflect.Struct:
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			return fmt.Errorf("an object is needed for %s, not a %s", t, v.Type().FriendlyName())
		}
		for _, f := range structFields(t) {
			var fv cty.Value
			switch {
			case v.Type().IsObjectType() && v.Type().HasAttribute(f.name):
				fv = v.GetAttr(f.name)
			case v.Type().IsMapType() && v.HasIndex(cty.StringVal(f.name)).True():
				fv = v.Index(cty.StringVal(f.name))
			default:
				continue
			}
			if err := fromCty(fv, dst.Field(f.index)); err != nil {
				return fmt.Errorf("%s: %v", f.name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("cannot store into %s", t)
}

// natural is a value as Go code would write it in an `any`: string,
// float64, bool, []any and map[string]any.
func natural(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("it is not known yet")
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString(), nil
	case t == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f, nil
	case t == cty.Bool:
		return v.True(), nil
	case t.IsListType() || t.IsSetType() || t.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := natural(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case t.IsMapType() || t.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			g, err := natural(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = g
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s has no Go form", t.FriendlyName())
}
