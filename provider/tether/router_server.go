package tether

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
)

// routeMethods are the methods a route may name; ANY matches them all.
var routeMethods = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY"}

// routeEntry is one route as the router keeps it, in memory and in its
// routes file.
type routeEntry struct {
	// ID is the tether_route's id: it tells a route re-registered by its
	// owner from another route that wants the same method and path.
	ID     string `json:"id"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Target string `json:"target"`
	// Pending names the process adding the route until it confirms it: a
	// run interrupted between the two (SIGTERM while the route is added)
	// leaves a route no state records, and another route for the same
	// method and path replaces it once that process is gone.
	Pending *procInfo `json:"pending,omitempty"`
	// Owner is the address of the tether_route that added the route,
	// where the provider was told it (Tether's engine tells it; a
	// Terraform plugin call does not): a route of the same address to the
	// same target adopts it (see routerServer.admin).
	Owner string `json:"owner,omitempty"`
}

// abandoned reports whether the route was being added by a process that
// ended before confirming it.
func (e routeEntry) abandoned() bool { return e.Pending != nil && !e.Pending.running() }

func (e routeEntry) key() string { return e.Method + " " + e.Path }

// pattern is the route as a net/http ServeMux pattern: the router gets
// the mux's matching ({name} wildcards, trailing-slash subtrees, most
// specific wins) and its errors for patterns that conflict.
func (e routeEntry) pattern() string {
	if e.Method == "ANY" {
		return e.Path
	}
	return e.Method + " " + e.Path
}

func checkMethod(m string) error {
	for _, ok := range routeMethods {
		if m == ok {
			return nil
		}
	}
	hint := ""
	if up := strings.ToUpper(m); up != m {
		for _, ok := range routeMethods {
			if up == ok {
				hint = fmt.Sprintf(" Write it in upper case: %q.", up)
			}
		}
	}
	return fmt.Errorf("the router cannot serve the method %q: use one of %s.%s", m, strings.Join(routeMethods, ", "), hint)
}

func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("the route path %q must start with \"/\", such as \"/echo\"", p)
	}
	for _, r := range p {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("the route path %q holds a space or control character; escape it, such as %%20 for a space", p)
		}
	}
	if _, err := buildMux([]routeEntry{{Method: "GET", Path: p, Target: "http://127.0.0.1"}}, nil); err != nil {
		return fmt.Errorf("the route path %q is not one the router can match: %v. Paths are exact (\"/echo\"), end in \"/\" for a subtree (\"/static/\"), or hold {name} and {name...} wildcards", p, err)
	}
	return nil
}

func checkTarget(t string) error {
	u, err := url.Parse(t)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the target %q is not an http URL such as http://127.0.0.1:8080; give the url of a tether_function", t)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("the target %q has a query or fragment; the router passes the request's own", t)
	}
	return nil
}

func (e routeEntry) check() error {
	if err := checkMethod(e.Method); err != nil {
		return err
	}
	if err := checkPath(e.Path); err != nil {
		return err
	}
	return checkTarget(e.Target)
}

// buildMux makes the router's handler for a set of routes. A mux cannot
// drop a route, so every change builds a new one.
func buildMux(routes []routeEntry, logger *log.Logger) (mux *http.ServeMux, err error) {
	defer func() {
		// ServeMux reports bad and conflicting patterns by panicking.
		if r := recover(); r != nil {
			mux, err = nil, fmt.Errorf("%v", r)
		}
	}()
	mux = http.NewServeMux()
	for _, r := range routes {
		target, err := url.Parse(r.Target)
		if err != nil {
			return nil, fmt.Errorf("route %s: %v", r.key(), err)
		}
		mux.Handle(r.pattern(), proxyTo(r, target, logger))
	}
	return mux, nil
}

func proxyTo(r routeEntry, target *url.URL, logger *log.Logger) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			if logger != nil {
				logger.Printf("%s %s: the target %s of route %s failed: %v", req.Method, req.URL.Path, r.Target, r.key(), err)
			}
			http.Error(w, fmt.Sprintf("tether router: the function behind %s (%s) did not answer: %v", r.key(), r.Target, err), http.StatusBadGateway)
		},
		ErrorLog: logger,
	}
}

// routerServer is the router process: user traffic on one listener, the
// admin endpoint that tether_route uses on another, so that no user path
// is reserved.
type routerServer struct {
	dir    string
	token  string
	logger *log.Logger
	mu     sync.Mutex // serializes changes to routes and the routes file
	routes map[string]routeEntry
	mux    atomic.Pointer[http.ServeMux]
}

func (s *routerServer) sorted() []routeEntry {
	out := make([]routeEntry, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

func (s *routerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.Load().ServeHTTP(w, r)
}

type routesFile struct {
	Routes []routeEntry `json:"routes"`
}

func loadRoutes(dir string) ([]routeEntry, error) {
	var f routesFile
	err := readJSON(filepath.Join(dir, routesFileName), &f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f.Routes, err
}

// commit replaces the routes: the file first, so that a route the router
// answered for survives a restart of the router.
func (s *routerServer) commit(next map[string]routeEntry) error {
	old := s.routes
	s.routes = next
	list := s.sorted()
	mux, err := buildMux(list, s.logger)
	if err != nil {
		s.routes = old
		return conflictError{err}
	}
	if err := writeJSON(filepath.Join(s.dir, routesFileName), routesFile{Routes: list}); err != nil {
		s.routes = old
		return err
	}
	s.mux.Store(mux)
	return nil
}

type conflictError struct{ error }

// refusal says why the router will not put e (the route it holds for the
// same method and path is old, if any), "" when it will. The router
// handles a request it accepted even after the client gave up on it, so
// that a request from a run stopped by SIGTERM can arrive after the next
// run has already cleaned up after it; neither kind may undo that:
//   - a pending route whose adding process has ended is refused: that
//     run is over, and its route would be left pending for good;
//   - a confirm only confirms the pending route of the same id: once that
//     route was deleted or replaced, a late confirm would bring it back,
//     and the next route for the method and path would be refused by it
//     in every later run.
//
// A route held by another id is refused, unless its adding process has
// ended before confirming it, or it was added for the same tether_route
// address and target as e: a route the router holds for the resource
// that is adding it again, left by a run that could not record it, is
// adopted.
func (s *routerServer) refusal(confirm bool, e, old routeEntry, held bool) string {
	switch {
	case confirm && (!held || old.ID != e.ID):
		return fmt.Sprintf("cannot confirm the route %s (id %s): the router no longer holds it; it was removed or replaced since it was added", e.key(), e.ID)
	case confirm:
		return ""
	case e.Pending != nil && !e.Pending.running():
		return fmt.Sprintf("the process adding the route %s (pid %d) has ended; the next run adds it again", e.key(), e.Pending.PID)
	case !held || old.ID == e.ID || old.abandoned():
		return ""
	case old.Owner != "" && old.Owner == e.Owner && old.Target == e.Target:
		s.logger.Printf("route %s (id %s) adopted by %s as id %s", e.key(), old.ID, e.Owner, e.ID)
		return ""
	}
	return fmt.Sprintf("%s is already routed to %s by another tether_route (id %s); each method and path can have one route", e.key(), old.Target, old.ID)
}

func (s *routerServer) admin() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/routes", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		list := s.sorted()
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(routesFile{Routes: list})
	})
	mux.HandleFunc("PUT /v1/routes", func(w http.ResponseWriter, r *http.Request) {
		var e routeEntry
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&e); err != nil {
			http.Error(w, "cannot read the route: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := e.check(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		old, ok := s.routes[e.key()]
		if msg := s.refusal(r.URL.Query().Has("confirm"), e, old, ok); msg != "" {
			http.Error(w, msg, http.StatusConflict)
			return
		}
		if r.URL.Query().Has("confirm") {
			e.Pending = nil
		}
		next := make(map[string]routeEntry, len(s.routes)+1)
		for k, v := range s.routes {
			next[k] = v
		}
		next[e.key()] = e
		if err := s.commit(next); err != nil {
			status := http.StatusInternalServerError
			if errors.As(err, &conflictError{}) {
				status = http.StatusConflict
			}
			http.Error(w, fmt.Sprintf("cannot add %s: %v", e.key(), err), status)
			return
		}
		s.logger.Printf("route %s -> %s", e.key(), e.Target)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /v1/routes", func(w http.ResponseWriter, r *http.Request) {
		var e routeEntry
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&e); err != nil {
			http.Error(w, "cannot read the route: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		old, ok := s.routes[e.key()]
		if !ok || old.ID != e.ID {
			w.WriteHeader(http.StatusNoContent) // not there, or not its own
			return
		}
		next := make(map[string]routeEntry, len(s.routes))
		for k, v := range s.routes {
			if k != e.key() {
				next[k] = v
			}
		}
		if err := s.commit(next); err != nil {
			http.Error(w, fmt.Sprintf("cannot remove %s: %v", e.key(), err), http.StatusInternalServerError)
			return
		}
		s.logger.Printf("route %s removed", e.key())
		w.WriteHeader(http.StatusNoContent)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only "Bearer <token>", and never an empty token: a router whose
		// token is empty accepts nothing (runRouter refuses to start with
		// one, this is the second lock).
		got, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !bearer || s.token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			http.Error(w, "tether router: the admin endpoint needs the token in the router's runtime folder", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// runRouter is the router process.
func runRouter(args []string, stderr io.Writer) int {
	dir, port, logger, ok := serviceFlags("router", "router", args, stderr)
	if !ok {
		return 2
	}
	token, err := os.ReadFile(filepath.Join(dir, tokenFileName))
	if err != nil {
		logger.Printf("cannot read the admin token: %v", err)
		return 1
	}
	s := &routerServer{dir: dir, token: strings.TrimSpace(string(token)), logger: logger, routes: map[string]routeEntry{}}
	if s.token == "" {
		logger.Printf("the admin token file %s is empty; the router will not serve an admin endpoint anyone could use (apply again: the provider writes a new token)", tokenFileName)
		return 1
	}
	saved, err := loadRoutes(dir)
	if err != nil {
		logger.Printf("cannot read the saved routes: %v", err)
		return 1
	}
	for _, r := range saved {
		s.routes[r.key()] = r
	}
	mux, err := buildMux(s.sorted(), logger)
	if err != nil {
		logger.Printf("the saved routes conflict: %v", err)
		return 1
	}
	s.mux.Store(mux)

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		logger.Printf("cannot listen: %v", err)
		return 1
	}
	adminLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		logger.Printf("cannot listen for the admin endpoint: %v", err)
		return 1
	}
	base := "http://" + ln.Addr().String()
	servers := []*http.Server{
		{Handler: s, ErrorLog: logger, ReadHeaderTimeout: 30 * time.Second},
		{Handler: s.admin(), ErrorLog: logger, ReadHeaderTimeout: 30 * time.Second},
	}
	return serve(logger, dir, readyInfo{PID: os.Getpid(), URL: base, Admin: "http://" + adminLn.Addr().String()},
		servers, []net.Listener{ln, adminLn}, fmt.Sprintf("serving %d routes on %s", len(saved), base))
}

// serve runs servers until SIGTERM or SIGINT, having announced through the
// ready file that they listen.
func serve(logger *log.Logger, dir string, ready readyInfo, servers []*http.Server, listeners []net.Listener, hello string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	if err := writeJSON(filepath.Join(dir, readyFileName), ready); err != nil {
		logger.Printf("cannot write the ready file: %v", err)
		return 1
	}
	logger.Print(hello)
	code := 0
	select {
	case <-ctx.Done():
		logger.Print("stopping")
	case err := <-errc:
		logger.Printf("stopped: %v", err)
		code = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, srv := range servers {
		srv.Shutdown(sctx)
	}
	return code
}
