package tether

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
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// runClosure runs the program as the closure id names: it runs the
// program's function again, to rebuild its closures and the resources
// they refer to (nothing is planned or applied), then serves the handler
// on $PORT, or runs the test and exits 1 when it fails. It returns the
// exit code.
func runClosure(id string, build func(*Stack) error, stdout, stderr io.Writer) int {
	// Whatever the closure starts is not a closure.
	os.Unsetenv(closureEnv)
	mode.closure.Store(true)
	// A closure rebuilds its program's declarations, which needs their
	// schemas, but plans and applies nothing: only the built-in provider
	// runs here, in process.
	builtin := provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })
	in := cli.LoadInput{
		Context: context.Background(),
		Schema: func(req config.ProviderRequirement) (*provider.Schema, error) {
			if req.Source != config.BuiltinSource {
				return nil, fmt.Errorf("a deployed closure cannot start provider %s; closures of programs that use providers other than tether's built-in one cannot run yet", req.Source.ForDisplay())
			}
			return builtin.Schema(req.Source.String())
		},
		Environ:     os.Environ(),
		NewProvider: builtin.Start,
	}
	st := newStack(in)
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
		fmt.Fprintf(stderr, "tether: this program has no closure %q; it has %v. Was it deployed from another version of the program?\n", id, ids)
		return 2
	}
	mode.stack.Store(st)
	mode.serving.Store(true)
	if cl.kind == closureTest {
		return runTest(cl, stdout)
	}
	return serve(cl, stderr)
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
		Handler:           recovering(cl, logger),
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
