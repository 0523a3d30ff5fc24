package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
	"net/http"
	"time"
)

// ClosureOption changes how a closure is deployed: tether.Uses,
// tether.FunctionID, tether.TestTimeout.
type ClosureOption = sdk.ClosureOption

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
	return sdk.Uses(properties...)
}

// TestTimeout bounds how long a test may run (a minute by default).
func TestTimeout(d time.Duration) ClosureOption {
	return sdk.TestTimeout(d)
}

// FunctionID sets the id of the function (and route) a router's handler
// is deployed as, instead of one made from the router's id, the method and
// the path (main_get_echo).
func FunctionID(id string) ClosureOption {
	return sdk.FunctionID(id)
}

// DeclareRoute deploys handler as the answer to method requests for path
// on router: a function of fnType running this program with the handler
// selected, and a route of routeType to it. Generated bindings call it
// (builtin.Router.Get).
func DeclareRoute(router, fn *Resource, fnType, routeType *Type, method, path string, handler http.HandlerFunc, opts ...ClosureOption) {
	sdk.DeclareRoute(router, fn, fnType.impl(), routeType.impl(), method, path, handler, opts...)
}

// DeclareHandler declares a function of fnType that serves handler: this
// program, run with the handler selected. Generated bindings call it
// (builtin.NewFunctionHandler).
func DeclareHandler(scope Scope, fn *Resource, fnType *Type, id string, handler http.HandlerFunc, opts ...ClosureOption) {
	sdk.DeclareHandler(scope, fn, fnType.impl(), id, handler, opts...)
}

// DeclareTest adds the test name, which runs fn, to tester. Generated
// bindings call it (builtin.Tester.Test).
func DeclareTest(tester *Resource, name string, fn func(*T), opts ...ClosureOption) {
	test := sdk.TestFunc{Func: fn}
	if fn != nil {
		test.Run = func(t *sdk.T) { fn(&T{t}) }
	}
	sdk.DeclareTest(tester, name, test, opts...)
}
