package sdk

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/deduce"
	"github.com/tetherhq/tether/internal/goprogram"
)

// closureEnv is the environment variable that makes a program run one of
// its closures instead of deploying: a deployed function or test sets it
// to the closure's id.
const closureEnv = "TETHER_CLOSURE"

// ClosureOption changes how a closure is deployed: tether.Uses,
// tether.FunctionID, tether.TestTimeout.
type ClosureOption interface{ applyClosure(*closureOptions) }

type closureOptions struct {
	uses       []usesOpt
	timeout    time.Duration
	timeoutPos hcl.Range
	id         string
}

type usesOpt struct {
	values []any
	pos    hcl.Range
}

func (u usesOpt) applyClosure(o *closureOptions) { o.uses = append(o.uses, u) }

// Uses declares captured properties a closure reads that the deducer
// cannot see: a resource chosen at run time, a function called through
// reflection. Pass the getters' Outputs, as in
//
//	router.Get("/", handler, tether.Uses(router.URL()))
//
// They are passed to the closure's function like the deduced ones, and
// the closure is deployed even though the deducer could not decide what it
// reads.
func Uses(properties ...any) ClosureOption {
	return usesOpt{values: properties, pos: caller(1)}
}

type timeoutOpt struct {
	d   time.Duration
	pos hcl.Range
}

func (t timeoutOpt) applyClosure(o *closureOptions) { o.timeout, o.timeoutPos = t.d, t.pos }

// TestTimeout bounds how long a test may run (a minute by default).
func TestTimeout(d time.Duration) ClosureOption { return timeoutOpt{d: d, pos: caller(1)} }

type idOpt string

func (i idOpt) applyClosure(o *closureOptions) { o.id = string(i) }

// FunctionID sets the id of the function (and route) a router's handler
// is deployed as, instead of one made from the router's id, the method and
// the path (main_get_echo).
func FunctionID(id string) ClosureOption { return idOpt(id) }

type closureKind int

const (
	closureHandler closureKind = iota
	closureTest
)

// closure is one function of the program handed to infrastructure.
type closure struct {
	// id is what TETHER_CLOSURE holds to select it: the address of the
	// function that serves it, or the tester's address and the test name.
	id   string
	kind closureKind
	// what names it in messages: the handler of GET /echo on
	// tether_router.main.
	what string
	// pos is the call that declared it; stack the call stack there.
	pos   hcl.Range
	stack []uintptr
	// api is the SDK function that declared it: builtin.Router.Get.
	api     string
	handler http.HandlerFunc
	test    func(*T)
	opts    closureOptions
	// owner is the resource that runs it: a tether_function, or the
	// tether_tester for a test.
	owner *construct
	// router, method and path are set for a router's handler.
	router       *construct
	method, path string
	testName     string
	fn           deduce.Func
	// seq is how many nodes the stack had when the closure was declared:
	// what was declared before it.
	seq int

	// Set at deploy: the captured properties it gets.
	uses []capturedUse
}

// capturedUse is one captured property a closure reads.
type capturedUse struct {
	c        *construct
	name     string
	env      string
	at       string // where the closure reads it
	expr     string
	client   bool
	declared bool // with tether.Uses rather than deduced
}

// closureSet is the closures of one stack.
type closureSet struct {
	list  []*closure
	byID  map[string]*closure
	tests map[*construct]map[string]*closure
}

// closuresMu guards the making of a stack's closure set.
var closuresMu sync.Mutex

func closuresOf(st *Stack) *closureSet {
	closuresMu.Lock()
	defer closuresMu.Unlock()
	if st.closures == nil {
		st.closures = &closureSet{byID: map[string]*closure{}, tests: map[*construct]map[string]*closure{}}
	}
	return st.closures
}

// noteDeclared records the call stack that declares a resource: when one
// line of the program declares several resources (a component made
// twice), the stacks tell which one a closure made next to it reads.
func noteDeclared(c *construct) {
	if mode.closure.Load() {
		return
	}
	c.declStack = callers(3)
}

func callers(skip int) []uintptr {
	var pcs [64]uintptr
	n := runtime.Callers(skip+1, pcs[:])
	return append([]uintptr(nil), pcs[:n]...)
}

// constructRef makes a construct usable where a Scope or a Dependable is
// expected.
type constructRef struct{ c *construct }

func (r constructRef) scopeConstruct() *construct { return r.c }
func (r constructRef) dependable() *construct     { return r.c }

// apiName names the SDK entry point that called us skip frames up, as the
// program sees it: builtin.(*Router).Get is builtin.Router.Get.
func apiName(skip int) string {
	fr := frames(skip+1, 1)
	if len(fr) == 0 {
		return "tether"
	}
	name := fr[0].Function
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return strings.NewReplacer("(*", "", ")", "").Replace(name)
}

// funcOf identifies a Go function the way the deducer finds it.
func funcOf(f any) deduce.Func {
	pc := reflect.ValueOf(f).Pointer()
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return deduce.Func{}
	}
	file, line := fn.FileLine(fn.Entry())
	return deduce.Func{Name: fn.Name(), File: goprogram.SourceFile(file), Line: line}
}

func collectClosureOptions(opts []ClosureOption) closureOptions {
	var o closureOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyClosure(&o)
		}
	}
	return o
}

// placeholderFunction is the configuration a closure's function has until
// the deploy knows its environment (see deployClosures).
func placeholderFunction() map[string]any {
	return map[string]any{"command": []string{"(closure)"}}
}

// resourceArg checks a resource handed to a closure API.
func resourceArg(r *Resource, pos hcl.Range, what string) *construct {
	if r == nil {
		scopeOf(nil, pos, what)
		return nil
	}
	c, diag := constructOf(r, pos, what)
	if diag != nil {
		if st := currentStack(); st != nil {
			st.mu.Lock()
			st.report(diag)
			st.mu.Unlock()
		}
		return nil
	}
	if c.dead {
		return nil
	}
	return c
}

func currentStack() *Stack {
	current.Lock()
	defer current.Unlock()
	return current.stack
}

// DeclareRoute deploys handler as the answer to method requests for path
// on router: a function of fnType running this program with the handler
// selected, and a route of routeType to it. Generated bindings call it
// (builtin.Router.Get).
func DeclareRoute(router, fn *Resource, fnType, routeType *Type, method, path string, handler http.HandlerFunc, opts ...ClosureOption) {
	pos := caller(2)
	api := apiName(1)
	o := collectClosureOptions(opts)
	fn.c = orphan(&construct{kind: kindResource, pos: pos, what: api})
	rc := resourceArg(router, pos, api)
	if rc == nil {
		return
	}
	st := rc.stack
	method = strings.ToUpper(strings.TrimSpace(method))
	if handler == nil {
		st.mu.Lock()
		st.report(diagAt(pos, "Nil handler", "%s was given a nil handler for %s %s.", api, method, path))
		st.mu.Unlock()
		return
	}
	id := o.id
	if id == "" {
		id = routeID(rc.id, method, path)
	}
	ft, rt := *fnType, *routeType
	ft.Func, rt.Func = api, api
	scope := constructRef{rc.parent}
	fc := declare(scope, pos, &ft, kindResource, id, placeholderFunction(), &options{})
	fn.c = fc
	if fc.dead {
		return
	}
	route := declare(scope, pos, &rt, kindResource, id+"_route", map[string]any{
		"router_id": attrAt[string](router, "id", pos),
		"method":    method,
		"path":      path,
		"target":    attrAt[string](fn, "url", pos),
	}, &options{})
	// The program's code never holds the route: it is no resource its
	// closures can read (see declarations).
	route.unseen = true
	st.addClosure(&closure{
		id: fc.addr, kind: closureHandler, what: fmt.Sprintf("the handler of %s %s on %s", method, path, rc.addr),
		pos: pos, stack: callers(2), api: api, handler: handler, opts: o, owner: fc,
		router: rc, method: method, path: path, fn: funcOf(handler),
	})
}

// DeclareHandler declares a function of fnType that serves handler: this
// program, run with the handler selected. Generated bindings call it
// (builtin.NewFunctionHandler).
func DeclareHandler(scope Scope, fn *Resource, fnType *Type, id string, handler http.HandlerFunc, opts ...ClosureOption) {
	pos := caller(2)
	api := apiName(1)
	o := collectClosureOptions(opts)
	ft := *fnType
	ft.Func = api
	fc := declare(scope, pos, &ft, kindResource, id, placeholderFunction(), &options{})
	fn.c = fc
	if fc.dead {
		return
	}
	st := fc.stack
	if handler == nil {
		st.mu.Lock()
		st.report(diagAt(pos, "Nil handler", "%s was given a nil handler.", api))
		st.mu.Unlock()
		return
	}
	st.addClosure(&closure{
		id: fc.addr, kind: closureHandler, what: "the handler of " + fc.addr,
		pos: pos, stack: callers(2), api: api, handler: handler, opts: o, owner: fc, fn: funcOf(handler),
	})
}

// TestFunc is a test given to DeclareTest.
type TestFunc struct {
	// Run runs the test; nil when the program gave nil.
	Run func(*T)
	// Func is the function the program wrote, which names the closure
	// and which the deducer reads: Run may be a wrapper of it.
	Func any
}

// DeclareTest adds the test name, which runs fn, to tester. Generated
// bindings call it (builtin.Tester.Test).
func DeclareTest(tester *Resource, name string, fn TestFunc, opts ...ClosureOption) {
	pos := caller(2)
	api := apiName(1)
	o := collectClosureOptions(opts)
	tc := resourceArg(tester, pos, api)
	if tc == nil {
		return
	}
	st := tc.stack
	fail := func(summary, format string, args ...any) {
		st.mu.Lock()
		st.report(diagAt(pos, summary, format, args...))
		st.mu.Unlock()
	}
	switch {
	case fn.Run == nil:
		fail("Nil test", "%s was given a nil function for the test %q.", api, name)
		return
	case strings.TrimSpace(name) == "":
		fail("Empty test name", "%s was given an empty test name; name each test, as in tester.Test(\"echo\", ...).", api)
		return
	case o.timeout < 0:
		fail("Invalid test timeout", "tether.TestTimeout was given %s; give a positive duration.", o.timeout)
		return
	}
	st.addClosure(&closure{
		id: tc.addr + "/" + name, kind: closureTest, what: fmt.Sprintf("the test %q of %s", name, tc.addr),
		pos: pos, stack: callers(2), api: api, test: fn.Run, opts: o, owner: tc, testName: name, fn: funcOf(fn.Func),
	})
}

// addClosure registers a closure of the stack.
func (st *Stack) addClosure(cl *closure) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.returned {
		st.report(diagAt(cl.pos, "Closure declared after the program's function returned", "%s was called after the function given to tether.Main returned; declare closures while it runs.", cl.api))
		return
	}
	set := closuresOf(st)
	cl.seq = len(st.nodes)
	if cl.kind == closureTest {
		tests := set.tests[cl.owner]
		if tests == nil {
			tests = map[string]*closure{}
			set.tests[cl.owner] = tests
		}
		if prev, ok := tests[cl.testName]; ok {
			st.report(diagAt(cl.pos, "Duplicate test", "%s at %s adds the test %q to %s, which %s already added at %s.", cl.api, posString(cl.pos), cl.testName, cl.owner.addr, prev.api, posString(prev.pos)))
			return
		}
		tests[cl.testName] = cl
	}
	set.list = append(set.list, cl)
	set.byID[cl.id] = cl
}

var nonIDChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// routeID is the id of the function of a router's handler: main_get_echo
// for GET /echo on router main, main_get_root for GET /. Its route is
// main_get_echo_route: ids are unique among all the resources of a scope.
func routeID(router, method, path string) string {
	slug := strings.Trim(nonIDChars.ReplaceAllString(path, "_"), "_")
	if slug == "" {
		slug = "root"
	}
	return router + "_" + strings.ToLower(nonIDChars.ReplaceAllString(method, "_")) + "_" + slug
}

// node finds the configuration node of a construct. The caller holds mu.
func (st *Stack) node(addr string) *config.Node {
	for _, n := range st.nodes {
		if n.Addr == addr && (n.Kind == config.Resource || n.Kind == config.DataSource) {
			return n
		}
	}
	return nil
}
