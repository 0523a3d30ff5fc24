package httpstatefake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Server is a running state server.
type Server struct {
	// URL is where it listens: the address is URL+"/state", the lock
	// address URL+"/lock".
	URL string

	srv                *httptest.Server
	username, password string

	mu     sync.Mutex
	states map[string][]byte
	locks  map[string][]byte
}

// Start starts a server; with a username, requests must carry it and the
// password as basic authentication.
func Start(username, password string) *Server {
	s := &Server{username: username, password: password, states: map[string][]byte{}, locks: map[string][]byte{}}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// State returns a workspace's document ("" for default), nil when none.
func (s *Server) State(ws string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[ws]
}

// SetState replaces a workspace's document, as another client would.
func (s *Server) SetState(ws string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states[ws] = body
}

// Lock returns a workspace's lock record, nil when it is free.
func (s *Server) Lock(ws string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.locks[ws]
}

func lockID(rec []byte) string {
	var l struct{ ID string }
	json.Unmarshal(rec, &l)
	return l.ID
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.username != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != s.username || p != s.password {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	body, _ := io.ReadAll(r.Body)
	ws := r.URL.Query().Get("workspace")
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.locks[ws]
	switch r.Method {
	case http.MethodGet:
		st, ok := s.states[ws]
		if !ok {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(st)
	case http.MethodPost:
		if held != nil && r.URL.Query().Get("ID") != lockID(held) {
			w.WriteHeader(http.StatusConflict)
			w.Write(held)
			return
		}
		s.states[ws] = body
	case http.MethodDelete:
		delete(s.states, ws)
	case "LOCK":
		if held != nil {
			w.WriteHeader(http.StatusLocked)
			w.Write(held)
			return
		}
		s.locks[ws] = body
	case "UNLOCK":
		// An empty record, or one without an ID, is a forced unlock, as
		// terraform force-unlock sends.
		if id := lockID(body); held != nil && id != "" && id != lockID(held) {
			w.WriteHeader(http.StatusConflict)
			w.Write(held)
			return
		}
		delete(s.locks, ws)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}
