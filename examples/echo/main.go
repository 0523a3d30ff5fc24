package main

import (
	"io"
	"net/http"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		router := builtin.NewRouter(s, "main", builtin.RouterArgs{})
		// Runs in a tether_function of its own, behind the route GET /echo.
		router.Get("/echo", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.URL.Query().Get("message"))
		})
		// Shown by up: the router's URL is known once it runs.
		s.Export("url", router.URL().String()+"/echo?message=Hello")

		tester := builtin.NewTester(s, "e2e", builtin.TesterArgs{})
		tester.Test("echo", func(t *tether.T) {
			// Inside the test, router.URL() is the router's real URL: the
			// deducer saw the test read it, so the test is deployed with
			// it in TETHER_ROUTER_MAIN_URL.
			resp, err := http.Get(router.URL().String() + "/echo?message=Hello")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if string(body) != "Hello" {
				t.Errorf("got %q, want %q", body, "Hello")
			}
		})
		return nil
	})
}
