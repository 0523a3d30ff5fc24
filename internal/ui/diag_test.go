package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

const mainTF = `resource "tether_file" "a" {
  filename = "a.txt"
  bogus    = true
}

output "x" {
	value = tether_file.a.nope
}
`

func rng(file string, l1, c1, l2, c2 int) *hcl.Range {
	return &hcl.Range{Filename: file, Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
}

func writeDiags(diags hcl.Diagnostics, sources map[string][]byte, color bool) string {
	var b bytes.Buffer
	WriteDiagnostics(&b, diags, sources, color)
	return b.String()
}

func TestWriteDiagnostics(t *testing.T) {
	sources := map[string][]byte{"main.tf": []byte(mainTF)}
	diags := hcl.Diagnostics{
		{
			Severity: hcl.DiagError,
			Summary:  "Unsupported argument",
			Detail:   `An argument named "bogus" is not expected here.`,
			Subject:  rng("main.tf", 3, 3, 3, 8),
		},
		{
			Severity: hcl.DiagWarning,
			Summary:  "Unsupported attribute",
			Detail:   `This object has no argument, nested block, or exported attribute named "nope". Did you mean to refer to an attribute of one of its instances, or to something else entirely?`,
			Subject:  rng("main.tf", 7, 23, 7, 28),
		},
		{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   "Tether found no .tf files.\n\n  tether init\n\nmay help.",
		},
	}
	checkText(t, writeDiags(diags, sources, false), `Error: main.tf:3:3: Unsupported argument

  3 |   bogus    = true
    |   ^^^^^

  An argument named "bogus" is not expected here.

Warning: main.tf:7:23: Unsupported attribute

  7 | 	value = tether_file.a.nope
    | 	                     ^^^^^

  This object has no argument, nested block, or exported attribute named
  "nope". Did you mean to refer to an attribute of one of its instances, or to
  something else entirely?

Error: No configuration files

  Tether found no .tf files.

    tether init

  may help.
`)
}

func TestWriteDiagnosticsMultiLine(t *testing.T) {
	src := map[string][]byte{"main.tf": []byte(mainTF)}
	got := writeDiags(hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Duplicate resource",
		Subject:  rng("main.tf", 1, 1, 4, 2),
	}}, src, false)
	checkText(t, got, `Error: main.tf:1:1: Duplicate resource

  1 | resource "tether_file" "a" {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  2 |   filename = "a.txt"
    |   ^^^^^^^^^^^^^^^^^^
  3 |   bogus    = true
    |   ^^^^^^^^^^^^^^^
  4 | }
    | ^
`)

	// A subject longer than the excerpt allows shows its ends.
	got = writeDiags(hcl.Diagnostics{{Summary: "Block", Subject: rng("main.tf", 1, 1, 8, 2)}}, src, false)
	checkText(t, got, `Error: main.tf:1:1: Block

  1 | resource "tether_file" "a" {
    | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  2 |   filename = "a.txt"
    |   ^^^^^^^^^^^^^^^^^^
    ...
  7 | 	value = tether_file.a.nope
    | 	^^^^^^^^^^^^^^^^^^^^^^^^^^
  8 | }
    | ^
`)
}

func TestWriteDiagnosticsOddRanges(t *testing.T) {
	src := map[string][]byte{"main.tf": []byte("a = 1\nb = 2")}
	for _, c := range []struct {
		name string
		r    *hcl.Range
		want string
	}{
		{"end past EOF", rng("main.tf", 2, 5, 40, 1), "Error: main.tf:2:5: S\n\n  2 | b = 2\n    |     ^\n"},
		{"start past EOF", rng("main.tf", 9, 1, 9, 2), "Error: main.tf:9:1: S\n"},
		{"columns past end of line", rng("main.tf", 1, 50, 1, 60), "Error: main.tf:1:50: S\n\n  1 | a = 1\n    |      ^\n"},
		{"empty range", rng("main.tf", 1, 3, 1, 3), "Error: main.tf:1:3: S\n\n  1 | a = 1\n    |   ^\n"},
		{"end before start", rng("main.tf", 2, 3, 1, 1), "Error: main.tf:2:3: S\n\n  2 | b = 2\n    |   ^^^\n"},
		{"ends at start of next line", rng("main.tf", 1, 1, 2, 1), "Error: main.tf:1:1: S\n\n  1 | a = 1\n    | ^^^^^\n"},
		{"zero position", rng("main.tf", 0, 0, 0, 0), "Error: main.tf:0:0: S\n"},
		{"unknown file", rng("nowhere/missing.tf", 1, 1, 1, 2), "Error: nowhere/missing.tf:1:1: S\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkText(t, writeDiags(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: c.r}}, src, false), c.want)
		})
	}
}

func TestWriteDiagnosticsFromDiskAndParser(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad.tf")
	src := []byte("locals {\n  ünï = \"x\"\n  y = ünï +\n}\n")
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if !diags.HasErrors() {
		t.Fatal("expected a parse error")
	}
	got := writeDiags(diags[:1], nil, false)
	d := diags[0]
	wantFirst := "Error: " + name + ":" + strconv.Itoa(d.Subject.Start.Line) + ":" + strconv.Itoa(d.Subject.Start.Column) + ": " + d.Summary + "\n"
	if !strings.HasPrefix(got, wantFirst) {
		t.Fatalf("got:\n%s\nwant first line %q", got, wantFirst)
	}
	// The caret sits after "+" although "ünï" takes more bytes than columns.
	if !strings.Contains(got, "  3 |   y = ünï +\n    |            ^\n") {
		t.Errorf("excerpt does not point past the operator:\n%s", got)
	}
}

func TestWriteDiagnosticsColor(t *testing.T) {
	src := map[string][]byte{"main.tf": []byte(mainTF)}
	diags := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad", Subject: rng("main.tf", 3, 3, 3, 8)}}
	colored := writeDiags(diags, src, true)
	if !strings.Contains(colored, "\x1b[1m\x1b[31mError:\x1b[0m") || !strings.Contains(colored, "\x1b[31m^^^^^\x1b[0m") {
		t.Errorf("no colour:\n%q", colored)
	}
	if stripANSI(colored) != writeDiags(diags, src, false) {
		t.Errorf("colored output differs from plain beyond escape codes:\n%s", stripANSI(colored))
	}
}
