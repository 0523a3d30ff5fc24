// Package helpers is a package of the test program's module that its
// closures call.
package helpers

import (
	"net/http"

	"github.com/tetherhq/tether/builtin"
)

// URLOf reads the URL of the router it is given.
func URLOf(r *builtin.Router) string {
	return r.URL().String()
}

// Handler returns a closure that reads the URL of the router it is given.
func Handler(r *builtin.Router) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) { // closure: helper-made
		w.Write([]byte(r.URL().String()))
	}
}

// Nothing reads nothing.
func Nothing() string { return "nothing" }

// Box holds a router by value, in another package than the closure that
// reads it.
type Box struct{ Router *builtin.Router }

// URL has a value receiver.
func (b Box) URL() string { return b.Router.URL().String() }
