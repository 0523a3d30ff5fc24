package cli

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/tetherhq/tether/internal/ui"
)

// fmtExtensions are the files fmt rewrites, as Terraform's fmt does, and
// OpenTofu's .tofu files, as its fmt does. JSON
// files have a format of their own and are left alone.
var fmtExtensions = []string{".tf", ".tofu", ".tfvars", ".tftest.hcl", ".tfmock.hcl"}

// fmt rewrites files in the canonical format. Exit codes are Terraform's:
// 0 done, 1 for bad usage or an unreadable file, 2 for a syntax error, 3
// for --check finding a file not formatted.
func (e *env) fmt(args []string) int {
	fs := e.flagSet("fmt")
	list := fs.Bool("list", true, "print the names of changed files")
	write := fs.Bool("write", true, "rewrite files")
	diff := fs.Bool("diff", false, "print the differences")
	check := fs.Bool("check", false, "change nothing; exit 3 when a file is not formatted")
	recursive := fs.Bool("recursive", false, "also format files in subfolders")
	fs.BoolVar(new(bool), "no-color", false, "print no colours")
	targets, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if *check {
		*write = false
	}
	if len(targets) == 0 {
		targets = []string{"."}
	}
	f := &formatter{env: e, list: *list, write: *write, diff: *diff}
	for _, t := range targets {
		if t == "-" {
			if len(targets) > 1 {
				return e.errorf("fmt reads standard input (-) only on its own, not with other targets")
			}
			f.stdin()
			continue
		}
		f.target(t, *recursive)
	}
	if len(f.diags) > 0 {
		ui.WriteDiagnostics(e.stderr, f.diags, f.sources, e.color)
	}
	switch {
	case f.failed:
		return 1
	case f.diags.HasErrors():
		return 2
	case *check && f.changed:
		return 3
	}
	return 0
}

type formatter struct {
	env               *env
	list, write, diff bool
	changed, failed   bool
	diags             hcl.Diagnostics
	sources           map[string][]byte
}

func (f *formatter) target(path string, recursive bool) {
	info, err := os.Stat(path)
	if err != nil {
		f.env.errorf("no file or folder %s to format", path)
		f.failed = true
		return
	}
	if !info.IsDir() {
		// A file named explicitly is formatted whatever its extension:
		// the user asked for it.
		f.file(path)
		return
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && (!recursive || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if hasFmtExtension(d.Name()) {
			f.file(p)
		}
		return nil
	})
	if err != nil {
		f.env.errorf("cannot read %s: %v", path, err)
		f.failed = true
	}
}

func hasFmtExtension(name string) bool {
	for _, ext := range fmtExtensions {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func (f *formatter) file(path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		f.env.errorf("cannot read %s: %v", path, err)
		f.failed = true
		return
	}
	out, ok := f.format(path, src)
	if !ok || bytes.Equal(src, out) {
		return
	}
	f.changed = true
	if f.list {
		fmt.Fprintln(f.env.stdout, path)
	}
	if f.write {
		info, _ := os.Stat(path)
		if err := os.WriteFile(path, out, info.Mode().Perm()); err != nil {
			f.env.errorf("cannot write %s: %v", path, err)
			f.failed = true
			return
		}
	}
	if f.diff {
		f.printDiff(path, src, out)
	}
}

func (f *formatter) stdin() {
	src, err := io.ReadAll(f.env.stdin)
	if err != nil {
		f.env.errorf("cannot read standard input: %v", err)
		f.failed = true
		return
	}
	out, ok := f.format("<stdin>", src)
	if !ok {
		return
	}
	if !bytes.Equal(src, out) {
		f.changed = true
	}
	if f.diff {
		f.printDiff("<stdin>", src, out)
	} else if f.write {
		f.env.stdout.Write(out)
	}
}

// format checks the syntax first, so that a broken file is reported, not
// rewritten, then formats it.
func (f *formatter) format(name string, src []byte) ([]byte, bool) {
	_, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		if f.sources == nil {
			f.sources = map[string][]byte{}
		}
		f.sources[name] = src
		f.diags = append(f.diags, diags...)
		return nil, false
	}
	file, diags := hclwrite.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		f.diags = append(f.diags, diags...)
		return nil, false
	}
	normalizeBody(file.Body(), nil)
	return hclwrite.Format(file.Bytes()), true
}

// printDiff prints a unified diff with the system's diff, as Terraform
// does; where diff is missing the user is told.
func (f *formatter) printDiff(name string, before, after []byte) {
	dir, err := os.MkdirTemp("", "tether-fmt")
	if err != nil {
		f.env.errorf("cannot show the differences: %v", err)
		f.failed = true
		return
	}
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	os.WriteFile(a, before, 0o600)
	os.WriteFile(b, after, 0o600)
	out, err := exec.Command("diff", "--label=old/"+filepath.ToSlash(name), "--label=new/"+filepath.ToSlash(name), "-u", a, b).Output()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		f.env.errorf("cannot show the differences: the diff program is needed: %v", err)
		f.failed = true
		return
	}
	f.env.stdout.Write(out)
}

// normalizeBody makes the two rewrites Terraform's fmt makes beyond
// spacing: an argument that is only one interpolation, "${var.x}", becomes
// the expression itself, and a variable's legacy quoted type, "string",
// becomes the type.
func normalizeBody(body *hclwrite.Body, inBlock *hclwrite.Block) {
	for name, attr := range body.Attributes() {
		if inBlock != nil && inBlock.Type() == "variable" && name == "type" {
			if t, ok := legacyType(attr.Expr().BuildTokens(nil)); ok {
				body.SetAttributeRaw(name, t)
				continue
			}
		}
		if t, ok := unwrapInterpolation(attr.Expr().BuildTokens(nil)); ok {
			body.SetAttributeRaw(name, t)
		}
	}
	for _, b := range body.Blocks() {
		normalizeBody(b.Body(), b)
	}
}

// unwrapInterpolation returns the expression inside "${ ... }" when the
// template holds that and nothing else, and nothing template-like inside:
// there the rewrite is certain to mean the same.
func unwrapInterpolation(tokens hclwrite.Tokens) (hclwrite.Tokens, bool) {
	n := len(tokens)
	if n < 5 || tokens[0].Type != hclsyntax.TokenOQuote || tokens[1].Type != hclsyntax.TokenTemplateInterp ||
		tokens[n-2].Type != hclsyntax.TokenTemplateSeqEnd || tokens[n-1].Type != hclsyntax.TokenCQuote {
		return nil, false
	}
	inner := tokens[2 : n-2]
	multiline := false
	for _, t := range inner {
		switch t.Type {
		case hclsyntax.TokenOQuote, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl,
			hclsyntax.TokenTemplateSeqEnd, hclsyntax.TokenOHeredoc, hclsyntax.TokenComment:
			return nil, false
		case hclsyntax.TokenNewline:
			multiline = true
		}
	}
	out := make(hclwrite.Tokens, 0, len(inner)+2)
	if multiline {
		out = append(out, &hclwrite.Token{Type: hclsyntax.TokenOParen, Bytes: []byte("(")})
	}
	for _, t := range inner {
		c := *t
		out = append(out, &c)
	}
	if len(out) > 0 {
		out[0].SpacesBefore = 0
	}
	if multiline {
		out = append(out, &hclwrite.Token{Type: hclsyntax.TokenCParen, Bytes: []byte(")")})
	}
	return out, true
}

// legacyType turns a quoted type name from Terraform 0.11 into the type.
func legacyType(tokens hclwrite.Tokens) (hclwrite.Tokens, bool) {
	if len(tokens) != 3 || tokens[0].Type != hclsyntax.TokenOQuote || tokens[1].Type != hclsyntax.TokenQuotedLit || tokens[2].Type != hclsyntax.TokenCQuote {
		return nil, false
	}
	var expr string
	switch string(tokens[1].Bytes) {
	case "string":
		expr = "string"
	case "list":
		expr = "list(string)"
	case "map":
		expr = "map(string)"
	default:
		return nil, false
	}
	return hclwrite.Tokens{{Type: hclsyntax.TokenIdent, Bytes: []byte(expr)}}, true
}
