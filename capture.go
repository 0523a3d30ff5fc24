package tether

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
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

func isCaptured(c *construct, name string) bool {
	return c.schema != nil && slices.Contains(c.schema.Captured, name)
}

// missingError is the error of a captured property whose variable the
// closure's environment lacks: the deployment did not pass it, because
// the deducer did not see the closure read it.
func missingError(c *construct, name string) error {
	return fmt.Errorf("The '%s' of the '<%s>%s' cannot be found.", name, c.typ.Name, resourceID(c))
}

func notCapturedError(c *construct, name string) error {
	var have string
	if c.schema != nil && len(c.schema.Captured) > 0 {
		have = "; code running in a deployed function can read only " + strings.Join(c.schema.Captured, ", ")
	}
	return fmt.Errorf("The '%s' of the '<%s>%s' is not a captured property%s.", name, c.typ.Name, resourceID(c), have)
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

// runtimeScope gives the resources of the rebuilt stack their captured
// properties from the environment, and everything else as unknown; it
// notes the properties it could not find.
type runtimeScope struct {
	st      *Stack
	missing []error
}

func (s *runtimeScope) Value(addr string) cty.Value {
	c := findConstruct(s.st.root, addr)
	if c == nil || c.schema == nil || c.schema.Block == nil {
		return cty.DynamicVal
	}
	ty := c.schema.Block.ImpliedType()
	attrs := map[string]cty.Value{}
	for name, at := range ty.AttributeTypes() {
		attrs[name] = cty.UnknownVal(at)
		if !isCaptured(c, name) {
			continue
		}
		v, err := capturedValue(c, name, at)
		if err != nil {
			s.missing = append(s.missing, err)
			continue
		}
		if cv, err := convert.Convert(v, at); err == nil {
			attrs[name] = cv
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
	sc := &runtimeScope{st: st}
	v, diags := l.eval(sc)
	if diags.HasErrors() {
		return cty.NilVal, errors.New(diags.Error())
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		if len(sc.missing) > 0 {
			return cty.NilVal, sc.missing[0]
		}
		return cty.NilVal, fmt.Errorf("%s is not known in a deployed function: it comes from attributes that are not captured properties", l.desc)
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

// runtimeFormat is Format in a running closure: the value, formatted as
// the verb says. fmt would swallow a panic here, so a value that cannot be
// had is written in fmt's way of writing errors, and reported: in the
// function's log, and as a failure of a running test.
func (o Output[T]) runtimeFormat(f fmt.State, verb rune) {
	v, err := o.Get()
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
