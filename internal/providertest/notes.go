package providertest

import (
	"os"
	"path/filepath"
	"testing"
)

// notesProgram is a Go program with a store "notes": a route of router
// "main", GET /put?text=..., stores a note and answers "stored " and what
// it reads back; GET /get answers the note; and a function handler of its
// own, "worker", reached at its function URL, answers "worker " and the
// note. Its outputs are url, the router's, and worker.
const notesProgram = `package main

import (
	"io"
	"net/http"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		store := builtin.NewKv(s, "notes", builtin.KvArgs{})
		read := func(w http.ResponseWriter, r *http.Request, prefix string) {
			c, err := store.Client()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			v, err := c.Get(r.Context(), "note")
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			io.WriteString(w, prefix+string(v))
		}
		router := builtin.NewRouter(s, "main", builtin.RouterArgs{})
		router.Get("/put", func(w http.ResponseWriter, r *http.Request) {
			c, err := store.Client()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			if err := c.Put(r.Context(), "note", []byte(r.URL.Query().Get("text"))); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			read(w, r, "stored ")
		})
		router.Get("/get", func(w http.ResponseWriter, r *http.Request) { read(w, r, "") })
		worker := builtin.NewFunctionHandler(s, "worker", func(w http.ResponseWriter, r *http.Request) { read(w, r, "worker ") })
		s.Export("url", router.URL())
		s.Export("worker", worker.URL())
		return nil
	})
}
`

// NotesProgram writes the notes program, a Go program whose handlers keep
// a note in a store (see notesProgram), as the module example.com/notes
// built with the SDK of the repository at repo, into a folder "notes" of
// the test's own, and returns that folder.
func NotesProgram(t testing.TB, repo string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(notesProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	GoModule(t, dir, "example.com/notes", repo)
	return dir
}
