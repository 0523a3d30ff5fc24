// Command app is a program whose closures take every shape the deducer
// must follow or refuse. Each closure's func line carries a "closure:"
// marker, each declaration an "origin:" marker; deduce_test.go reads them.
package main

import (
	"fmt"
	"net/http"
	"os"
	"reflect"
	"sort"
	"sync"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
	"github.com/tetherhq/tether/internal/deduce/testdata/app/helpers"
)

var global *builtin.Router

type server struct {
	router *builtin.Router
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, s.router.URL())
}

// localBox holds a router by value; its method has a value receiver.
type localBox struct{ R *builtin.Router }

func (b localBox) URL() string { return b.R.URL().String() }

type urlGetter interface {
	URL() tether.Output[string]
}

func named(w http.ResponseWriter, r *http.Request) { // closure: named
	fmt.Fprint(w, global.URL())
}

// urlHandler makes a handler of a string computed by its caller.
func urlHandler(base string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { // closure: outside-factory
		fmt.Fprint(w, base)
	}
}

// send sends on a channel it is given: the receiver's value comes from
// here.
func send(ch chan<- string, v string) { ch <- v }

// urlOf is called through a function value.
func urlOf(r *builtin.Router) string { return r.URL().String() }

// slash is called through a function value with a string made outside.
func slash(s string) string { return s + "/" }

type maker struct {
	f func(*builtin.Router) string
	g func(string) string
}

// urlBox's method, called through an interface, returns its field.
type urlBox struct{ u string }

func (b urlBox) Get() string { return b.u }

type stringGetter interface{ Get() string }

// newRouter is a helper of the main package that declares a router.
func newRouter(s *tether.Stack, id string) *builtin.Router {
	return builtin.NewRouter(s, id, builtin.RouterArgs{}) // origin: in-helper
}

func main() {
	tether.Main(func(s *tether.Stack) error {
		r1 := builtin.NewRouter(s, "r1", builtin.RouterArgs{}) // origin: r1
		r2 := builtin.NewRouter(s, "r2", builtin.RouterArgs{}) // origin: r2
		r3 := builtin.NewRouter(s, "r3", builtin.RouterArgs{}) // origin: r3
		store := builtin.NewKv(s, "store", builtin.KvArgs{})   // origin: store
		g2 := builtin.NewRouter(s, "g2", builtin.RouterArgs{}) // origin: g2
		name := "plain"
		global = builtin.NewRouter(s, "g", builtin.RouterArgs{}) // origin: g

		r1.Get("/literal", func(w http.ResponseWriter, r *http.Request) { // closure: literal
			fmt.Fprint(w, r1.URL())
		})
		r1.Get("/none", func(w http.ResponseWriter, r *http.Request) { // closure: none
			fmt.Fprint(w, "nothing here")
		})
		r1.Get("/named", named)

		srv := &server{router: r2}
		r1.Get("/method", srv.handle) // a method value: found by name

		r1.Get("/helper2", func(w http.ResponseWriter, r *http.Request) { // closure: helper-r2
			fmt.Fprint(w, helpers.URLOf(r2), helpers.Nothing())
		})
		r1.Get("/helper3", func(w http.ResponseWriter, r *http.Request) { // closure: helper-r3
			fmt.Fprint(w, helpers.URLOf(r3))
		})
		r1.Get("/made", helpers.Handler(r3))

		// Reassigned before use: the closure runs later and reads the last.
		v := builtin.NewRouter(s, "first", builtin.RouterArgs{})             // origin: first
		v = builtin.NewRouter(s, "last", builtin.RouterArgs{})               // origin: last
		r1.Get("/reassigned", func(w http.ResponseWriter, r *http.Request) { // closure: reassigned
			fmt.Fprint(w, v.URL())
		})

		// Closures stored in a map, called with a constant key and with a
		// key chosen at run time.
		urls := map[string]func() string{
			"one": func() string { return r1.URL().String() },
			"two": func() string { return r2.URL().String() },
		}
		r1.Get("/map-const", func(w http.ResponseWriter, r *http.Request) { // closure: map-const
			fmt.Fprint(w, urls["two"]())
		})
		r1.Get("/map-any", func(w http.ResponseWriter, r *http.Request) { // closure: map-any
			fmt.Fprint(w, urls[r.URL.Query().Get("which")]())
		})

		// Handlers in a map, registered in a loop.
		handlers := map[string]http.HandlerFunc{
			"/a": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r2.URL()) }, // closure: stored-a
			"/b": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "b") },      // closure: stored-b
		}
		for path, h := range handlers {
			r1.Get(path, h)
		}

		// Through an interface, a direct tether.Attr, a goroutine, a
		// function given to the standard library, a helper of this package.
		var g urlGetter = r3
		r1.Get("/iface", func(w http.ResponseWriter, r *http.Request) { // closure: iface
			fmt.Fprint(w, g.URL())
		})
		r1.Get("/attr", func(w http.ResponseWriter, r *http.Request) { // closure: attr
			fmt.Fprint(w, tether.Attr[string](store, "endpoint"))
		})
		r1.Get("/client", func(w http.ResponseWriter, r *http.Request) { // closure: client
			if c, err := store.Client(); err == nil {
				c.Put(r.Context(), "k", nil)
			}
		})
		r1.Get("/go", func(w http.ResponseWriter, r *http.Request) { // closure: go
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				fmt.Fprint(w, r2.URL())
			}()
			wg.Wait()
			xs := []string{"b", "a"}
			sort.Slice(xs, func(i, j int) bool { return xs[i] < r3.URL().String() })
		})
		h := newRouter(s, "h")
		r1.Get("/via-helper", func(w http.ResponseWriter, r *http.Request) { // closure: via-helper
			fmt.Fprint(w, h.URL())
		})

		// A router and its handler made in each iteration of a loop.
		for _, name := range []string{"l1", "l2"} {
			lr := builtin.NewRouter(s, name, builtin.RouterArgs{})     // origin: in-loop
			lr.Get("/", func(w http.ResponseWriter, r *http.Request) { // closure: loop
				fmt.Fprint(w, lr.URL())
			})
		}

		// One variable reassigned in each iteration: every closure reads
		// the last router.
		var last *builtin.Router
		for _, name := range []string{"m1", "m2"} {
			last = builtin.NewRouter(s, name, builtin.RouterArgs{})      // origin: in-loop-last
			last.Get("/", func(w http.ResponseWriter, r *http.Request) { // closure: loop-last
				fmt.Fprint(w, last.URL())
			})
		}

		// A slice read with a constant index.
		list := []*builtin.Router{r2, r3}
		r1.Get("/index", func(w http.ResponseWriter, r *http.Request) { // closure: index
			fmt.Fprint(w, list[1].URL())
		})

		// Refused: a resource chosen at run time, reflection.
		routers := map[string]*builtin.Router{"r2": r2, "r3": r3}
		r1.Get("/chosen", func(w http.ResponseWriter, r *http.Request) { // closure: chosen
			fmt.Fprint(w, routers[r.URL.Query().Get("router")].URL())
		})
		r1.Get("/chosen-index", func(w http.ResponseWriter, r *http.Request) { // closure: chosen-index
			fmt.Fprint(w, list[len(os.Args)].URL())
		})
		r1.Get("/reflect", func(w http.ResponseWriter, r *http.Request) { // closure: reflect
			out := reflect.ValueOf(helpers.Nothing).Call(nil)
			fmt.Fprint(w, out[0].String())
		})
		r1.Get("/not-captured", func(w http.ResponseWriter, r *http.Request) { // closure: not-captured
			fmt.Fprint(w, r2.ID())
		})

		// Structs held by value, a value-receiver method, a struct of
		// another package.
		lb := localBox{R: r2}
		r1.Get("/struct-value", func(w http.ResponseWriter, r *http.Request) { // closure: struct-value
			fmt.Fprint(w, lb.R.URL())
		})
		r1.Get("/value-method", func(w http.ResponseWriter, r *http.Request) { // closure: value-method
			fmt.Fprint(w, lb.URL())
		})
		hb := helpers.Box{Router: r3}
		r1.Get("/other-package", func(w http.ResponseWriter, r *http.Request) { // closure: other-package
			fmt.Fprint(w, hb.Router.URL(), hb.URL())
		})

		// Values computed from getters outside the closure and captured.
		u := r2.URL()
		us := r3.URL().String()
		uf := fmt.Sprintf("%s/x", g2.URL())
		both := tether.Apply2(r1.URL(), store.Endpoint(), func(a, b string) string { return a + b })
		all := tether.All(r2.URL(), r3.URL())
		r1.Get("/outside", func(w http.ResponseWriter, r *http.Request) { // closure: outside
			fmt.Fprint(w, u, us, uf, both, all)
		})
		r1.Get("/outside-factory", urlHandler(r2.URL().String()))
		r1.Get("/outside-none", func(w http.ResponseWriter, r *http.Request) { // closure: outside-none
			fmt.Fprint(w, lb.R != nil, name)
		})

		// Values that reach a closure through a channel (sent by a helper,
		// or in a select), a function value the program calls, and
		// reflection, which the deducer cannot follow.
		ch := make(chan string, 1)
		send(ch, r2.URL().String())
		sel := make(chan fmt.Stringer, 1)
		select {
		case sel <- r3.URL():
		default:
		}
		r1.Get("/chan", func(w http.ResponseWriter, r *http.Request) { // closure: chan
			fmt.Fprint(w, <-ch)
			select {
			case v := <-sel:
				fmt.Fprint(w, v)
			default:
			}
		})
		mk := maker{f: urlOf, g: slash}
		made := mk.f(g2)
		slashed := mk.g(r2.URL().String())
		r1.Get("/func-value", func(w http.ResponseWriter, r *http.Request) { // closure: func-value
			fmt.Fprint(w, made, slashed)
		})
		var kept sync.Map
		kept.Store("u", g2.URL().String())
		r1.Get("/kept", func(w http.ResponseWriter, r *http.Request) { // closure: kept
			v, _ := kept.Load("u")
			fmt.Fprint(w, v)
		})
		var sg stringGetter = urlBox{u: r3.URL().String()}
		viaIface := sg.Get()
		r1.Get("/iface-value", func(w http.ResponseWriter, r *http.Request) { // closure: iface-value
			fmt.Fprint(w, viaIface)
		})
		rv := reflect.ValueOf(func() string { return g2.URL().String() }).Call(nil)[0].String()
		r1.Get("/reflected", func(w http.ResponseWriter, r *http.Request) { // closure: reflected
			fmt.Fprint(w, rv)
		})
		return nil
	})
}
