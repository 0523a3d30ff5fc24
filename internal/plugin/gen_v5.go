//go:build ignore

// gen_v5 writes v5.go from v6.go: protocol version 5 is version 6 with
// some RPCs and messages renamed and no nested attributes, so the version 5
// client is the version 6 one with its names changed. Run it with go
// generate; TestV5IsGenerated fails when v5.go is stale.
//
// It renames, in code and in comments:
//   - the package tfplugin6 to tfplugin5, and the RPCs and request messages
//     version 5 names differently (renames below);
//   - every name declared at the top of v6.go that ends in 6 (rpc6,
//     dvFrom6, ...) to end in 5 instead, and "protocol version 6" to
//     "protocol version 5".
//
// It drops every statement and composite literal element whose comment
// starts "Protocol 6 only", with that comment.
//
// Usage: go run gen_v5.go [-o file]   (default v5.go; "-" for stdout)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
)

// renames maps version 6 RPC and message names to version 5's, where they
// differ. An RPC is renamed where it is called on the gRPC client (r.c),
// a message where it is qualified by the stubs' package.
var renames = map[string]string{
	"GetProviderSchema":                         "GetSchema",
	"Provider_GetProviderSchema_FullMethodName": "Provider_GetSchema_FullMethodName",
	"ValidateProviderConfig":                    "PrepareProviderConfig",
	"ValidateProviderConfig_Request":            "PrepareProviderConfig_Request",
	"ValidateResourceConfig":                    "ValidateResourceTypeConfig",
	"ValidateResourceConfig_Request":            "ValidateResourceTypeConfig_Request",
	"ValidateDataResourceConfig":                "ValidateDataSourceConfig",
	"ValidateDataResourceConfig_Request":        "ValidateDataSourceConfig_Request",
	"ConfigureProvider":                         "Configure",
	"ConfigureProvider_Request":                 "Configure_Request",
	"StopProvider":                              "Stop",
	"StopProvider_Request":                      "Stop_Request",
}

const onlySix = "Protocol 6 only"

func main() {
	out := flag.String("o", "v5.go", `output file, or "-" for standard output`)
	flag.Parse()
	src, err := generate("v6.go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_v5:", err)
		os.Exit(1)
	}
	if *out == "-" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen_v5:", err)
		os.Exit(1)
	}
}

func generate(name string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	cmap := ast.NewCommentMap(fset, f, f.Comments)

	// The names declared here that end in 6.
	own := map[string]string{"tfplugin6": "tfplugin5"}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				addOwn(own, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					addOwn(own, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						addOwn(own, n.Name)
					}
				}
			}
		}
	}

	// Drop what protocol 5 lacks.
	drop := func(n ast.Node) bool {
		for _, cg := range cmap[n] {
			if strings.HasPrefix(strings.TrimSpace(cg.Text()), onlySix) {
				delete(cmap, n)
				return true
			}
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			n.List = filter(n.List, drop)
		case *ast.CaseClause:
			n.Body = filter(n.Body, drop)
		case *ast.CompositeLit:
			n.Elts = filter(n.Elts, drop)
		}
		return true
	})

	var unknown []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			n.Path.Value = strings.Replace(n.Path.Value, "/tfplugin6\"", "/tfplugin5\"", 1)
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "tfplugin6" {
				if to, ok := renames[n.Sel.Name]; ok {
					n.Sel.Name = to
				}
			}
			if isGRPCClient(n.X) {
				if to, ok := renames[n.Sel.Name]; ok {
					n.Sel.Name = to
				}
			}
		case *ast.Ident:
			if to, ok := own[n.Name]; ok {
				n.Name = to
			} else if strings.HasSuffix(n.Name, "6") && n.Name != "tfprotov6" {
				unknown = append(unknown, n.Name)
			}
		}
		return true
	})
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s uses names ending in 6 that it does not declare, which would stay unchanged: %v", name, unknown)
	}

	words := make([]string, 0, len(own))
	for from := range own {
		words = append(words, regexp.QuoteMeta(from))
	}
	wordRE := regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
	// The comments above the package clause belong to v6.go alone: they
	// say it is the source, and hold the go:generate line.
	f.Comments = nil
	for _, cg := range cmap.Filter(f).Comments() {
		if cg.End() < f.Package {
			continue
		}
		f.Comments = append(f.Comments, cg)
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			c.Text = wordRE.ReplaceAllStringFunc(c.Text, func(w string) string { return own[w] })
			c.Text = strings.ReplaceAll(c.Text, "protocol version 6", "protocol version 5")
		}
	}

	var buf bytes.Buffer
	buf.WriteString("// Code generated by gen_v5.go from v6.go. DO NOT EDIT.\n\n")
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, err
	}
	// Reformat from source: positions of the dropped nodes leave gaps.
	return format.Source(buf.Bytes())
}

func addOwn(own map[string]string, name string) {
	if strings.HasSuffix(name, "6") {
		own[name] = strings.TrimSuffix(name, "6") + "5"
	}
}

// isGRPCClient reports whether x is r.c, the generated gRPC client.
func isGRPCClient(x ast.Expr) bool {
	sel, ok := x.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "c" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "r"
}

func filter[T ast.Node](list []T, drop func(ast.Node) bool) []T {
	out := list[:0]
	for _, n := range list {
		if !drop(n) {
			out = append(out, n)
		}
	}
	return out
}
