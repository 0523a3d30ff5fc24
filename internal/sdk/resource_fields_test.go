package sdk

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

type fieldsRule struct {
	Port Number `tether:"port"`
}

type fieldsArgs struct {
	Name  string            `tether:"name,required"`
	Dir   *string           `tether:"dir"`
	Rule  []fieldsRule      `tether:"rule"`
	Tags  map[string]string `tether:"tags"`
	Input any               `tether:"input"`
}

// A provider's attribute path, written as the program's fields, and found
// in the composite literal given at the constructor's line.
func TestGoFieldNames(t *testing.T) {
	src := `package main

func main() {
	NewThing(s, "x", &fieldsArgs{
		Name: "a",
		Dir:  String(""),
		Rule: []fieldsRule{
			{Port: Int(1)},
			{
				Port: Int(2),
			},
		},
		Tags: map[string]string{"env": "prod"},
	})
}
`
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	pos := hcl.Range{Filename: file, Start: hcl.Pos{Line: 4, Column: 2}}
	// As the engine asks: through the node nameFields sets up.
	n := &config.Node{}
	nameFields(n, reflect.TypeFor[*fieldsArgs](), pos)
	for _, c := range []struct {
		path       cty.Path
		name       string
		line, col  int
		noName, at bool
	}{
		{path: cty.GetAttrPath("dir"), name: ".Dir", line: 6, col: 3, at: true},
		{path: cty.GetAttrPath("rule").IndexInt(1).GetAttr("port"), name: ".Rule[1].Port", line: 10, col: 5, at: true},
		{path: cty.GetAttrPath("rule").IndexInt(0), name: ".Rule[0]", line: 8, col: 4, at: true},
		{path: cty.GetAttrPath("tags").IndexString("env"), name: `.Tags["env"]`, line: 13, col: 27, at: true},
		// A dynamic attribute: the rest of the path as the schema names it.
		{path: cty.GetAttrPath("input").GetAttr("a"), name: ".Input.a"},
		{path: cty.GetAttrPath("nope"), noName: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, ok := n.Attrs.AttrName(c.path)
			if ok == c.noName || name != c.name {
				t.Errorf("name %q, %v; want %q", name, ok, c.name)
			}
			rng, ok := n.Attrs.AttrRange(c.path)
			if ok != c.at || (ok && (rng.Start.Line != c.line || rng.Start.Column != c.col)) {
				t.Errorf("at %v, %v; want %d:%d", rng, ok, c.line, c.col)
			}
		})
	}
}
