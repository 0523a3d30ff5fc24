package arch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Path is the file's place, relative to the program's folder.
var Path = filepath.Join(".tether", "arch.json")

// Relationship kinds.
const (
	// Infrastructure: a resource runs a closure (a router routes to it, a
	// tester runs it as a test, a function serves it). From is the
	// resource, To the closure.
	Infrastructure = "infrastructure"
	// CapturedProperty: a closure reads a property of a resource.
	CapturedProperty = "captured property"
	// Client: a closure uses a resource through a method that is not a
	// plain getter, such as a client of the resource.
	Client = "client"
)

// Arch is the content of the file.
type Arch struct {
	// Program is the folder of the program's main package.
	Program       string     `json:"program"`
	Resources     []Resource `json:"resources"`
	Closures      []Closure  `json:"closures"`
	Relationships []Relation `json:"relationships"`
}

// Resource is a resource of the program.
type Resource struct {
	Address    string `json:"address"`
	Type       string `json:"type"`
	ID         string `json:"id"`
	DeclaredAt string `json:"declared_at"`
}

// Closure is a function of the program handed to infrastructure.
type Closure struct {
	// ID is what TETHER_CLOSURE holds to run it.
	ID   string `json:"id"`
	Kind string `json:"kind"` // "handler" or "test"
	// Description names it: the handler of GET /echo on tether_router.main.
	Description string `json:"description"`
	// Function is the Go function, Source where it is written.
	Function   string `json:"function"`
	Source     string `json:"source"`
	DeclaredAt string `json:"declared_at"`
	// DeployedAs is the resource that runs it: a tether_function, or the
	// tether_tester of a test.
	DeployedAs string `json:"deployed_as"`
	// Env maps each environment variable it gets to the property it
	// carries (tether_router.main.url); TETHER_CLOSURE to its ID.
	Env map[string]string `json:"env"`
}

// Node is how relationships name a closure.
func (c Closure) Node() string { return "closure:" + c.ID }

// Relation is one relationship.
type Relation struct {
	Kind      string `json:"kind"`
	From      string `json:"from"`
	To        string `json:"to"`
	Operation string `json:"operation,omitempty"`
	Property  string `json:"property,omitempty"`
	Env       string `json:"env,omitempty"`
	At        string `json:"at,omitempty"`
	// Source says how it is known: "deduced" from the program's source,
	// or "declared" with tether.Uses.
	Source string `json:"source,omitempty"`
}

// Write writes a to Path under dir.
func Write(dir string, a *Arch) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(dir, Path)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o644)
}

// Remove removes the file under dir, if there is one.
func Remove(dir string) error {
	if err := os.Remove(filepath.Join(dir, Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Read reads the file under dir.
func Read(dir string) (*Arch, error) {
	b, err := os.ReadFile(filepath.Join(dir, Path))
	if err != nil {
		return nil, err
	}
	var a Arch
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: %v", Path, err)
	}
	return &a, nil
}

// WriteDOT writes the architecture as a DOT graph: resources as boxes,
// closures as ellipses, each relationship an edge labelled with its kind.
func WriteDOT(w io.Writer, a *Arch) {
	fmt.Fprintln(w, "digraph arch {")
	fmt.Fprintln(w, "  rankdir = \"LR\";")
	for _, r := range a.Resources {
		fmt.Fprintf(w, "  %q [shape = box];\n", r.Address)
	}
	for _, c := range a.Closures {
		label := fmt.Sprintf("%s\n%s", c.Description, c.Source)
		fmt.Fprintf(w, "  %q [shape = ellipse, label = %q];\n", c.Node(), label)
	}
	rels := append([]Relation(nil), a.Relationships...)
	sort.SliceStable(rels, func(i, j int) bool {
		if rels[i].From != rels[j].From {
			return rels[i].From < rels[j].From
		}
		return rels[i].To < rels[j].To
	})
	for _, r := range rels {
		label := r.Kind
		var extra []string
		if r.Operation != "" {
			extra = append(extra, r.Operation)
		}
		if r.Property != "" {
			extra = append(extra, r.Property)
		}
		if r.Env != "" {
			extra = append(extra, r.Env)
		}
		if len(extra) > 0 {
			label += ": " + strings.Join(extra, " ")
		}
		style := ""
		if r.Kind != Infrastructure {
			style = ", style = dashed"
		}
		fmt.Fprintf(w, "  %q -> %q [label = %q%s];\n", r.From, r.To, label, style)
	}
	fmt.Fprintln(w, "}")
}
