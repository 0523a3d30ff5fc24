package sdk

// Go values to templates: the builder turns what a program passes to the
// SDK into known cty values and lazy parts (convert_eval.go evaluates
// them), reporting mistakes at the program's line.

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

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
	// for the caller to explain. refsOK then still takes references
	// passed on whole, which a direct-form read resolves.
	noLazy, refsOK bool
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
	// set lists the top-level arguments given with tether.Set, which a
	// required field left unset does not miss.
	set map[string]bool
}

// setNames lists the arguments sets give, for builder.set.
func setNames(sets []setOpt) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		m[s.name] = true
	}
	return m
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
		if b.refsOK && len(l.deps) == 0 {
			return true
		}
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

// optionTypes are the interfaces of the SDK's options. An option stored
// in an args field of type any would otherwise become {}: it is a struct
// of unexported fields.
var optionTypes = []reflect.Type{
	reflect.TypeFor[ResourceOption](),
	reflect.TypeFor[InvokeOption](),
	reflect.TypeFor[ModuleOption](),
	reflect.TypeFor[ClosureOption](),
	reflect.TypeFor[ExportOption](),
}

func isOption(t reflect.Type) bool {
	for _, o := range optionTypes {
		if t.Implements(o) {
			return true
		}
	}
	return false
}

// optionAsValue reports an option given where a value goes, as in
// ValueArgs{Input: tether.Set("input", v)}.
func (b *builder) optionAsValue(rv reflect.Value, path string) {
	if s, ok := rv.Interface().(setOpt); ok {
		b.errorf("An option is not a value", "%s was given tether.Set(%q, ...) as the value of %s. tether.Set is an option, not a value: pass the value itself in the field, or pass tether.Set after the arguments, as in %s(scope, id, args, tether.Set(%q, value)).", b.where, s.name, displayPath(path), b.where, s.name)
		return
	}
	b.errorf("An option is not a value", "%s was given an option (%s) as the value of %s. Options go after the arguments, not in them.", b.where, rv.Type(), displayPath(path))
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
	if rv.Kind() != reflect.Interface && isOption(rv.Type()) {
		b.optionAsValue(rv, path)
		return nullTmpl
	}
	switch rv.Type() {
	case numberType:
		v, err := rv.Interface().(Number).ctyNumber()
		if err != nil {
			b.errorf("Invalid number", "%s was given an invalid number at %s: %s.", b.where, displayPath(path), err)
			return nullTmpl
		}
		return known(v)
	case bigFloatType:
		f := rv.Interface().(big.Float)
		if f.IsInf() {
			b.errorf("Invalid number", "%s was given an infinite number at %s; Terraform numbers cannot be infinite.", b.where, displayPath(path))
			return nullTmpl
		}
		return known(cty.NumberVal(new(big.Float).Copy(&f)))
	case bigIntType:
		i := rv.Interface().(big.Int)
		return known(cty.NumberVal(new(big.Float).SetInt(&i)))
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
			case f.required && (nilable(fv) && fv.IsNil() || zeroNumber(fv)):
				if path == "" && b.set[f.name] {
					continue
				}
				in := ""
				if path != "" {
					in = " in " + displayPath(path)
				}
				b.errorf("Missing required field", "%s needs %s (the argument %s)%s, but it is %s.", b.where, f.goName, f.name, in, unsetWord(fv))
				continue
			case f.optional && (fv.IsZero() || zeroNumber(fv)):
				continue
			}
			names = append(names, f.name)
			attrs = append(attrs, b.value(fv, fpath, depth+1))
		}
		if len(fields) == 0 && rv.NumField() > 0 {
			// Converting it to {} would drop everything it holds.
			b.errorf("Unsupported value", "%s was given a %s at %s, whose fields are all unexported, so none of it can be converted. Pass a value made of strings, numbers, bools, slices, maps and structs with exported fields.", b.where, rv.Type(), displayPath(path))
			return nullTmpl
		}
		return object(names, attrs)
	}
	b.errorf("Unsupported value", "%s was given a %s at %s, which has no Terraform equivalent.", b.where, rv.Type(), displayPath(path))
	return nullTmpl
}

// zeroNumber reports whether v is the zero Number, or a NumberInput
// holding it: no number.
func zeroNumber(v reflect.Value) bool {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v.Type() == numberType && v.IsZero()
}

// unsetWord is what a required field left unset holds, for messages.
func unsetWord(v reflect.Value) string {
	if zeroNumber(v) {
		return "the zero Number (no number; set one with tether.Int, tether.Float or tether.ParseNumber)"
	}
	return "nil"
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
		b.errorf("Output formatted with an unsupported verb", "%s was given a string at %s made by formatting an Output with %s. An Output is not known while the program runs, so only %%s and %%v work, without width or precision: they put a token in its place. To format the value itself, use tether.Apply, for example tether.Apply(out, func(n float64) string { return fmt.Sprintf(%q, n) }).", b.where, displayPath(path), verb, verb)
		return nullTmpl
	}
	if i := strings.Index(s, refVerbPrefix); i >= 0 {
		verb, _, _ := strings.Cut(s[i+len(refVerbPrefix):], "}")
		b.errorf("Reference formatted with an unsupported verb", "%s was given a string at %s made by formatting a reference with %s. A reference has no value in the program, so it cannot be formatted; pass it on whole, as its String form.", b.where, displayPath(path), verb)
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
			b.errorf("Reference to a non-string in a string", "%s was given at %s the String form of the reference %s, which resolves to a %s. Only a Reference[string] goes in a string field; give this one with tether.Set(\"NAME\", ref).", b.where, displayPath(path), r.Description(), r.Type.FriendlyName())
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
		piece, l, made, broken = encodedToken(text)
	}
	if !broken {
		return true
	}
	what := "a token"
	if l != nil {
		what = fmt.Sprintf("the token of %s, made at %s,", l.desc, posString(made))
	}
	b.errorf("Token changed by a string operation",
		"%s was given a string at %s that holds a piece of a token (%q). A token stands for an Output inside a string, and Tether puts the value in its place only when it arrives whole; %s was changed after it was made, by an operation such as strings.ToUpper, slicing, strings.Replace or an encoding (hex, base64). Apply the operation to the value instead: tether.Apply(out, strings.ToUpper), or tether.Apply(out, func(s string) string { return s[:5] }).",
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
