package tether

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tetherhq/tether/runtime/kv"
)

// runEcho is `tether runtime echo`: a function that needs nothing but this
// binary, for examples and tests of the runtime.
func runEcho(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("echo", flag.ContinueOnError)
	fset.SetOutput(stderr)
	kvEnv := fset.String("kv-env", "", "environment variable holding a tether_kv endpoint to store each message in")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	logger := log.New(stdout, "echo: ", log.LstdFlags)
	port := os.Getenv("PORT")
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		fmt.Fprintf(stderr, "echo: PORT is %q; run it as a tether_function, which sets PORT\n", port)
		return 2
	}
	var store *kv.Client
	if *kvEnv != "" {
		var err error
		if store, err = kv.Open(os.Getenv(*kvEnv)); err != nil {
			fmt.Fprintf(stderr, "echo: the store named by %s: %v\n", *kvEnv, err)
			return 2
		}
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			// net/http recovers, logs the stack to the function's log and
			// drops the connection: what a crashing handler looks like
			// from the router.
			panic("echo: panic requested by " + r.URL.String())
		}
		msg := "No message"
		if q := r.URL.Query(); q.Has("message") {
			msg = q.Get("message")
		}
		if store != nil && r.URL.Query().Has("message") {
			if err := store.Put(r.Context(), "last-message", []byte(msg)); err != nil {
				logger.Printf("%s %s: %v", r.Method, r.URL, err)
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		logger.Printf("%s %s", r.Method, r.URL)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, msg)
	})
	srv := &http.Server{Addr: net.JoinHostPort("127.0.0.1", port), Handler: handler, ReadHeaderTimeout: 30 * time.Second}
	logger.Printf("listening on %s", srv.Addr)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintf(stderr, "echo: %v\n", err)
		return 1
	}
	return 0
}

// runHTTPGet is `tether runtime http-get`: the check an end-to-end test
// usually is, with no dependency on curl.
func runHTTPGet(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("http-get", flag.ContinueOnError)
	fset.SetOutput(stderr)
	wantStatus := fset.Int("want-status", 200, "status the response must have")
	wantBody := fset.String("want-body", "", "body the response must have")
	timeout := fset.Duration("timeout", 30*time.Second, "how long to wait for the response")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	checkBody := false
	fset.Visit(func(f *flag.Flag) { checkBody = checkBody || f.Name == "want-body" })
	if fset.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: http-get [-want-status N] [-want-body TEXT] URL")
		return 2
	}
	var missing []string
	target := os.Expand(fset.Arg(0), func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "http-get: the URL %q names %s, which the environment does not set\n", fset.Arg(0), strings.Join(missing, ", "))
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		fmt.Fprintf(stderr, "http-get: %v\n", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "http-get: GET %s: %v\n", target, err)
		return 1
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		fmt.Fprintf(stderr, "http-get: GET %s: reading the body: %v\n", target, err)
		return 1
	}
	stdout.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		io.WriteString(stdout, "\n")
	}
	var wrong []string
	if resp.StatusCode != *wantStatus {
		wrong = append(wrong, fmt.Sprintf("status %d", *wantStatus))
	}
	if checkBody && string(body) != *wantBody {
		wrong = append(wrong, fmt.Sprintf("body %q", *wantBody))
	}
	if len(wrong) > 0 {
		fmt.Fprintf(stderr, "http-get: GET %s: got status %d and body %q; want %s\n", target, resp.StatusCode, body, strings.Join(wrong, " and "))
		return 1
	}
	return 0
}
