package sdk

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/platform/awslambda"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// runClosure runs the program as the closure id names: it runs the
// program's function again, to rebuild its closures and the resources
// they refer to (nothing is planned or applied), then serves the handler
// on $PORT, or runs the test and exits 1 when it fails. It returns the
// exit code.
func runClosure(id string, build Program, stdout, stderr io.Writer) int {
	// Whatever the closure starts is not a closure.
	os.Unsetenv(closureEnv)
	mode.closure.Store(true)
	st := newStack(rebuildInput())
	// Strings made from Outputs while the program rebuilds are their
	// values where the environment has them (see rebuildString).
	mode.stack.Store(st)
	failed := st.build(build)
	_, diags := st.seal()
	diags = append(diags, failed...)
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "tether: the program could not rebuild its closures to run %s:\n", id)
		ui.WriteDiagnostics(stderr, diags, sourceFiles(), false)
		return 2
	}
	set := closuresOf(st)
	cl := set.byID[id]
	if cl == nil {
		var ids []string
		for k := range set.byID {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		fmt.Fprintf(stderr, "tether: this program has no closure %q; it has %v. Was it deployed from another version of the program? A deployed closure's function runs the program again with only PATH, HOME, TMPDIR, the locale and the variables of its own environment: a program must declare its closures the same way with those alone, not from other environment variables.\n", id, ids)
		return 2
	}
	mode.serving.Store(true)
	if cl.kind == closureTest {
		return runTest(cl, stdout)
	}
	if awslambda.Running() {
		// Deployed as an AWS Lambda function: the same handler serves
		// API Gateway's events through the Runtime API.
		awslambda.Start(recovering(cl, log.New(stderr, "", log.LstdFlags)))
		return 0
	}
	return serve(cl, stderr)
}

// rebuildInput is what a program needs to build its declarations again
// inside a closure or for provider::tether::apply: their schemas, but
// nothing planned or applied. Only the built-in provider runs, in
// process.
func rebuildInput() cli.LoadInput {
	builtin := provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })
	return cli.LoadInput{
		Context: context.Background(),
		Schema: func(req config.ProviderRequirement) (*provider.Schema, error) {
			if req.Source != config.BuiltinSource {
				// Its resources' attributes come from the environment.
				return standInProvider, nil
			}
			return builtin.Schema(req.Source.String())
		},
		Environ:     os.Environ(),
		NewProvider: builtin.Start,
		// A closure out of the default workspace has its name here (see
		// closureEnvMap).
		Workspace: os.Getenv("TF_WORKSPACE"),
	}
}

// serve serves a handler on 127.0.0.1:$PORT until SIGTERM or SIGINT.
func serve(cl *closure, stderr io.Writer) int {
	logger := log.New(stderr, "", log.LstdFlags)
	port := os.Getenv("PORT")
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		logger.Printf("tether: PORT is %q; %s runs as a tether_function, which sets PORT", port, cl.what)
		return 2
	}
	srv := &http.Server{
		Addr:              net.JoinHostPort("127.0.0.1", port),
		Handler:           routed(cl, recovering(cl, logger), logger),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          logger,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	logger.Printf("tether: serving %s on http://%s", cl.what, srv.Addr)
	select {
	case err := <-errc:
		logger.Printf("tether: %v", err)
		return 1
	case <-ctx.Done():
		// The provider stops a function with SIGTERM and kills it 5 s
		// later: finish the requests in flight before that.
		sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			logger.Printf("tether: stopping: %v", err)
		}
		return 0
	}
}

// routed serves a router's handler under its route's pattern, so that
// what net/http's ServeMux gives a handler holds inside the function too:
// r.PathValue("key") behind /notes/{key}. Requests sent to the function
// directly, on other paths, reach the handler as before.
func routed(cl *closure, h http.Handler, logger *log.Logger) http.Handler {
	if cl.router == nil {
		return h
	}
	mux := http.NewServeMux()
	if err := handle(mux, cl.path, h); err != nil {
		logger.Printf("tether: %s is served without its pattern: %v", cl.what, err)
		return h
	}
	if cl.path != "/" {
		_ = handle(mux, "/", h) // refused when the pattern already matches every path
	}
	return mux
}

// handle is mux.Handle, which reports a bad or conflicting pattern by
// panicking.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// recovering runs the handler, answering 500 when it panics: the panic
// and its stack go to the function's log, and the function keeps serving.
func recovering(cl *closure, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v) // net/http's own way to abort a response
			}
			logger.Printf("tether: panic serving %s %s: %v\n%s", r.Method, r.URL.RequestURI(), v, debug.Stack())
			if !tw.wrote {
				http.Error(w, fmt.Sprintf("500 Internal Server Error: %s panicked: %v", cl.what, v), http.StatusInternalServerError)
			}
		}()
		cl.handler(tw, r)
	})
}

// trackingWriter notes whether the handler started its response, after
// which a status can no longer be sent.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackingWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *trackingWriter) Flush() {
	w.wrote = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// runTest runs a test and returns 1 when it failed.
func runTest(cl *closure, stdout io.Writer) int {
	t := newT(cl.testName, stdout)
	runningTest.Store(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer t.finish()
		defer func() {
			if v := recover(); v != nil {
				t.panicked(v, debug.Stack())
			}
		}()
		cl.test(t)
	}()
	<-done
	if t.Failed() {
		return 1
	}
	return 0
}
