package sdk

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// A program runs in one of two modes. Deploying, it declares resources
// and the engine plans and applies them; an Output stands for a value that
// is not known yet. Started by a deployed function or test (TETHER_CLOSURE
// names the closure), it declares the same resources again, to rebuild
// the closures and the resources they refer to, then runs the one closure;
// once its function returned, an Output of a captured property is the
// value the deployment put in the closure's environment.
var mode struct {
	// closure is set when the program runs a closure.
	closure atomic.Bool
	// serving is set once the program's function returned and the
	// closure runs: from then on Outputs give their run-time values.
	serving atomic.Bool
	// stack is the stack rebuilt to run the closure.
	stack atomic.Pointer[Stack]
}

// running reports whether Outputs give run-time values.
func running() bool { return mode.serving.Load() }

// attrRead is what an Output made by Attr reads: which attribute of which
// resource. Kept beside the Output's lazy value, for the run-time value
// and for tether.Uses.
type attrRead struct {
	c    *construct
	name string
	pos  hcl.Range
}

// noteAttr records what the Output of Attr reads. Attr calls it.
func noteAttr(l *lazy, c *construct, name string, pos hcl.Range) {
	if c != nil && l != nil {
		l.attr = &attrRead{c: c, name: name, pos: pos}
	}
}

func attrOf(l *lazy) (attrRead, bool) {
	if l == nil || l.attr == nil {
		return attrRead{}, false
	}
	return *l.attr, true
}

// resourceID is the id of a resource in the names of the environment
// variables of its captured properties: its own id, after the ids of the
// components it is in, separated by dots (site.main for tether_router.main
// in component site).
func resourceID(c *construct) string {
	var ids []string
	for x := c; x != nil && x.kind != kindStack; x = x.parent {
		ids = append(ids, x.id)
	}
	slices.Reverse(ids)
	return strings.Join(ids, ".")
}

// capturedEnv is the environment variable of property name of c.
func capturedEnv(c *construct, name string) string {
	return provider.CapturedEnvName(c.typ.Name, resourceID(c), name)
}

// isCaptured reports whether a closure can read attribute name of c at run
// time: any attribute or block of its type can. In a running closure, a
// type whose provider's schema the closure cannot read (any provider
// other than the built-in one) has a stand-in schema, and the deployment
// already checked the name.
func isCaptured(c *construct, name string) bool {
	if c.schema == standInSchema {
		return true
	}
	if c.schema == nil || c.schema.Block == nil {
		return false
	}
	if _, ok := c.schema.Block.Attributes[name]; ok {
		return true
	}
	_, ok := c.schema.Block.BlockTypes[name]
	return ok
}

// missingError is the error of a captured property whose variable the
// closure's environment lacks: the deployment did not pass it, because
// the deducer did not see the closure read it.
func missingError(c *construct, name string) error {
	return fmt.Errorf("The '%s' of the '<%s>%s' cannot be found.", name, c.typ.Name, resourceID(c))
}

func notCapturedError(c *construct, name string) error {
	return fmt.Errorf("The '<%s>%s' has no attribute '%s'.", c.typ.Name, resourceID(c), name)
}

// capturedValue reads property name of c from the environment.
func capturedValue(c *construct, name string, ty cty.Type) (cty.Value, error) {
	if c.typ == nil || c.dead {
		return cty.NilVal, fmt.Errorf("%s was not declared, so it has no %s", c.addr, name)
	}
	if !isCaptured(c, name) {
		return cty.NilVal, notCapturedError(c, name)
	}
	raw, ok := os.LookupEnv(capturedEnv(c, name))
	if !ok {
		return cty.NilVal, missingError(c, name)
	}
	return decodeEnv(raw, ty)
}

// standInSchema is the schema of every type of a provider other than the
// built-in one in a running closure, which starts no provider: it knows no
// attribute, and the closure reads whichever one its environment carries
// (see isCaptured). standInProvider is that provider's schema.
var (
	standInSchema   = &provider.ResourceSchema{Block: &provider.Block{}}
	standInProvider = &provider.Schema{Provider: &provider.Block{}}
)

// decodeEnv turns a variable's text into a value of ty: a string as it
// is, anything else as JSON (see encodeEnv).
func decodeEnv(raw string, ty cty.Type) (cty.Value, error) {
	ty = ty.WithoutOptionalAttributesDeep()
	if ty == cty.String || ty == cty.DynamicPseudoType {
		return cty.StringVal(raw), nil
	}
	v, err := ctyjson.Unmarshal([]byte(raw), ty)
	if err != nil {
		// A number or bool travels as its string form.
		if cv, cerr := convert.Convert(cty.StringVal(raw), ty); cerr == nil {
			return cv, nil
		}
		return cty.NilVal, err
	}
	return v, nil
}

// runtimeScope gives the resources of the rebuilt stack their attributes
// from the environment, and those the environment lacks as unknown,
// marked with what is missing, so that a value computed from one can say
// which.
type runtimeScope struct {
	st *Stack
}

// missingMark marks an unknown attribute of a resource in a running
// closure: its variable is not in the environment.
type missingMark struct {
	c    *construct
	name string
}

func (s *runtimeScope) Value(addr string) cty.Value {
	c := findConstruct(s.st.root, addr)
	if c == nil || c.schema == nil {
		return cty.DynamicVal
	}
	if c.schema == standInSchema {
		return standInValue(c)
	}
	if c.schema.Block == nil {
		return cty.DynamicVal
	}
	ty := c.schema.Block.ImpliedType()
	attrs := map[string]cty.Value{}
	for name, at := range ty.AttributeTypes() {
		attrs[name] = cty.UnknownVal(at).Mark(missingMark{c, name})
		v, err := capturedValue(c, name, at)
		if err != nil {
			continue
		}
		if cv, err := convert.Convert(v, at); err == nil {
			attrs[name] = cv
		}
	}
	return cty.ObjectVal(attrs)
}

// standInValue is the object of a resource whose schema a running closure
// does not have: the attributes its environment carries, as strings,
// named as the variables name them (attribute names are lower case).
func standInValue(c *construct) cty.Value {
	prefix := capturedEnv(c, "")
	attrs := map[string]cty.Value{}
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(name, prefix); ok && rest != "" {
			attrs[strings.ToLower(rest)] = cty.StringVal(val)
		}
	}
	return cty.ObjectVal(attrs)
}

var _ config.Scope = (*runtimeScope)(nil)

func findConstruct(c *construct, addr string) *construct {
	if c.addr == addr && c.kind != kindStack {
		return c
	}
	for _, ch := range c.children {
		if f := findConstruct(ch, addr); f != nil {
			return f
		}
	}
	return nil
}

// runtimeValue is the run-time value of a lazy value: a captured property
// from the environment, or a value computed from such properties (with
// Apply, Sprintf or a token in a string).
func runtimeValue(l *lazy) (cty.Value, error) {
	if l == nil || l == nullLazy {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	if l.err != nil {
		return cty.NilVal, errors.New(l.err.Summary + ": " + l.err.Detail)
	}
	if r, ok := attrOf(l); ok {
		return capturedValue(r.c, r.name, l.ty)
	}
	st := mode.stack.Load()
	if st == nil {
		return cty.NilVal, fmt.Errorf("%s is not known here", l.desc)
	}
	v, diags := l.eval(&runtimeScope{st: st})
	if diags.HasErrors() {
		return cty.NilVal, errors.New(diags.Error())
	}
	v, marks := v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		var missing []error
		for m := range marks {
			if mm, ok := m.(missingMark); ok {
				missing = append(missing, missingError(mm.c, mm.name))
			}
		}
		if len(missing) > 0 {
			sort.Slice(missing, func(i, j int) bool { return missing[i].Error() < missing[j].Error() })
			return cty.NilVal, missing[0]
		}
		return cty.NilVal, fmt.Errorf("%s is not known in a deployed function: it comes from attributes its environment does not carry", l.desc)
	}
	return v, nil
}

// Get returns the value of an Output in code that runs in a deployed
// function or test (a closure given to a router, tester or function):
// there, an Output of a captured property, such as router.URL(), holds
// the value the deployment passed in the environment. While the program
// deploys, no value is known yet and Get returns an error; use the Output
// itself, or its String form, in resource arguments instead.
//
// A captured property the closure was not deployed with (its variable is
// missing) is an error such as
//
//	The 'url' of the '<tether_router>main' cannot be found.
func (o Output[T]) Get() (T, error) {
	var zero T
	if !running() {
		return zero, fmt.Errorf("%s is not known while the program deploys: Get gives values in code running in a deployed function or test", o.lazyRef().desc)
	}
	return o.value()
}

// value is the run-time value of the Output (see Get).
func (o Output[T]) value() (T, error) {
	var zero T
	v, err := runtimeValue(o.l)
	if err != nil {
		return zero, err
	}
	var t T
	if err := fromCty(v, reflect.ValueOf(&t).Elem()); err != nil {
		return zero, fmt.Errorf("%s: %v", o.lazyRef().desc, err)
	}
	return t, nil
}

// runtimeString is String in a running closure: the value itself. A value
// that cannot be had panics with the reason, which the closure's function
// reports (a handler answers 500, a test fails).
func (o Output[T]) runtimeString() string {
	v, err := runtimeValue(o.l)
	if err != nil {
		panic(err)
	}
	if v.IsNull() {
		return ""
	}
	if sv, err := convert.Convert(v, cty.String); err == nil {
		return sv.AsString()
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		panic(err)
	}
	return string(b)
}

// rebuildString is String while a program rebuilds its closures to run
// one (see runClosure): the value itself when the closure's environment
// carries what it comes from. A closure that captured a string made from
// an Output outside it (u := router.URL().String()) then holds the URL,
// as the deducer, which follows what closures capture, made sure. When
// the environment lacks it, the string is a token as while deploying: the
// rebuilt declarations need no values.
func (o Output[T]) rebuildString() (string, bool) {
	if !mode.closure.Load() || mode.stack.Load() == nil || o.l == nil {
		return "", false
	}
	v, err := runtimeValue(o.l)
	if err != nil {
		return "", false
	}
	if v.IsNull() {
		return "", true
	}
	if sv, err := convert.Convert(v, cty.String); err == nil {
		return sv.AsString(), true
	}
	b, err := ctyjson.Marshal(v, v.Type())
	return string(b), err == nil
}

// runtimeFormat is Format in a running closure: the value, formatted as
// the verb says. fmt would swallow a panic here, so a value that cannot be
// had is written in fmt's way of writing errors, and reported: in the
// function's log, and as a failure of a running test.
func (o Output[T]) runtimeFormat(f fmt.State, verb rune) {
	v, err := o.value()
	if err != nil {
		reportRuntime(err)
		fmt.Fprintf(f, "%%!%c(%v)", verb, err)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), v)
}

// runningTest is the test this process runs, if it runs one.
var runningTest atomic.Pointer[T]

// reportRuntime reports a captured property a closure could not read
// where the closure cannot be told (inside fmt).
func reportRuntime(err error) {
	if t := runningTest.Load(); t != nil {
		t.Error(err)
		return
	}
	fmt.Fprintf(os.Stderr, "tether: %v\n", err)
}

// encodeEnv is the text of a captured property in an environment
// variable: a string as it is, any other value as JSON.
func encodeEnv(v cty.Value) (string, error) {
	v, _ = v.UnmarkDeep()
	if v.Type() == cty.String {
		return v.AsString(), nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	return string(b), err
}
