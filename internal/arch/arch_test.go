package arch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReadDOT(t *testing.T) {
	dir := t.TempDir()
	a := &Arch{
		Program:   dir,
		Resources: []Resource{{Address: "tether_router.main", Type: "tether_router", ID: "main", DeclaredAt: "main.go:12"}},
		Closures: []Closure{{ID: "tether_function.main_get_echo", Kind: "handler", Description: "the handler of GET /echo on tether_router.main",
			Source: "main.go:14", Env: map[string]string{"TETHER_CLOSURE": "tether_function.main_get_echo", "TETHER_ROUTER_MAIN_URL": "tether_router.main.url"}}},
		Relationships: []Relation{
			{Kind: CapturedProperty, From: "closure:tether_function.main_get_echo", To: "tether_router.main", Property: "url", Env: "TETHER_ROUTER_MAIN_URL"},
			{Kind: Infrastructure, From: "tether_router.main", To: "closure:tether_function.main_get_echo", Operation: "GET /echo"},
		},
	}
	if err := Write(dir, a); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var dot bytes.Buffer
	WriteDOT(&dot, got)
	for _, want := range []string{
		`"tether_router.main" [shape = box];`,
		`"closure:tether_function.main_get_echo" [shape = ellipse, label = "the handler of GET /echo on tether_router.main\nmain.go:14"];`,
		`"tether_router.main" -> "closure:tether_function.main_get_echo" [label = "infrastructure: GET /echo"];`,
		`"closure:tether_function.main_get_echo" -> "tether_router.main" [label = "captured property: url TETHER_ROUTER_MAIN_URL", style = dashed];`,
	} {
		if !strings.Contains(dot.String(), want) {
			t.Errorf("DOT lacks %s:\n%s", want, dot.String())
		}
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, Path)); !os.IsNotExist(err) {
		t.Errorf("Remove left the file: %v", err)
	}
	if err := Remove(dir); err != nil {
		t.Errorf("removing no file: %v", err)
	}
}
