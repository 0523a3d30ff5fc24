package ui

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/diagnostic"
)

// detailWidth is where diagnostic details wrap, counting their indent.
const detailWidth = 78

// maxExcerptLines bounds the excerpt of a subject that spans many lines,
// such as a whole block: its first and last lines say where it is.
const maxExcerptLines = 5

// WriteDiagnostics writes diags to w in the order given. Each starts with
// a line a test or an editor can match, "Error: FILE:LINE:COL: SUMMARY"
// ("Error: FILE:LINE:COL: ADDRESS: SUMMARY" when it is about one object),
// followed by the source lines of the subject with the subject underlined,
// and the detail. Sources are looked up in sources by file name, then read
// from disk; a diagnostic whose source cannot be had is written without an
// excerpt.
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, sources map[string][]byte, color bool) {
	p := &printer{out: w, color: color}
	files := map[string]*sourceFile{}
	first := true
	for _, d := range diags {
		if d == nil {
			continue
		}
		if !first {
			p.nl()
		}
		first = false
		p.diagnostic(d, func(name string) *sourceFile {
			f, ok := files[name]
			if !ok {
				src, found := sources[name]
				if !found {
					src, _ = os.ReadFile(name)
				}
				if src != nil {
					f = newSourceFile(src)
				}
				files[name] = f
			}
			return f
		})
	}
	p.flush()
}

// WriteCompactWarnings writes warnings as Terraform's -compact-warnings
// does when there is no error: a line each, where and what, then a note
// that the full text was left out.
func WriteCompactWarnings(w io.Writer, diags hcl.Diagnostics, color bool) {
	p := &printer{out: w, color: color}
	p.colored(ansiBold+ansiYellow, "Warnings:")
	p.nl()
	p.nl()
	for _, d := range diags {
		if d == nil || d.Severity != hcl.DiagWarning {
			continue
		}
		p.str("- ")
		p.heading(d)
	}
	p.nl()
	p.str("To see the full warning notes, run Tether without -compact-warnings.")
	p.nl()
	p.flush()
}

func (p *printer) diagnostic(d *hcl.Diagnostic, source func(string) *sourceFile) {
	tone := ansiRed
	if d.Severity == hcl.DiagWarning {
		tone = ansiYellow
		p.colored(ansiBold+tone, "Warning:")
	} else {
		p.colored(ansiBold+tone, "Error:")
	}
	p.byte(' ')
	p.heading(d)

	if d.Subject != nil {
		if f := source(d.Subject.Filename); f != nil {
			p.excerpt(f, *d.Subject, tone)
		}
	}
	if detail := strings.TrimSpace(d.Detail); detail != "" {
		p.nl()
		for _, line := range strings.Split(detail, "\n") {
			p.wrapped(strings.TrimRight(line, " \t\r"))
		}
	}
}

// heading writes a diagnostic's first line after its severity: where,
// which attribute, and the summary.
func (p *printer) heading(d *hcl.Diagnostic) {
	if s := d.Subject; s != nil {
		if s.Filename != "" {
			p.safe(s.Filename)
			p.byte(':')
		}
		p.str(strconv.Itoa(s.Start.Line))
		p.byte(':')
		p.str(strconv.Itoa(s.Start.Column))
		p.str(": ")
	}
	if p.color {
		p.str(ansiBold)
	}
	// A provider's diagnostic about one attribute names it after the
	// address, as the configuration does (a Go program's field, .Dir),
	// since the excerpt may show a whole literal rather than the argument.
	if a := address(d) + diagnostic.AttributeName(d); a != "" {
		p.safe(strings.TrimPrefix(a, "."))
		p.str(": ")
	}
	p.safe(d.Summary)
	if p.color {
		p.str(ansiReset)
	}
	p.nl()
}

// address is the address of the object d is about, from its Extra
// (internal/diagnostic's About puts it there), or "".
func address(d *hcl.Diagnostic) string {
	if a, ok := hcl.DiagnosticExtra[interface{ DiagnosticAddress() string }](d); ok {
		return a.DiagnosticAddress()
	}
	return ""
}

type sourceFile struct {
	src   []byte
	start []int // byte offset of each line
}

func newSourceFile(src []byte) *sourceFile {
	f := &sourceFile{src: src, start: []int{0}}
	for i, c := range src {
		if c == '\n' {
			f.start = append(f.start, i+1)
		}
	}
	return f
}

func (f *sourceFile) lines() int { return len(f.start) }

// line returns line n (1-based) without its line ending.
func (f *sourceFile) line(n int) (text []byte, offset int) {
	s := f.start[n-1]
	e := len(f.src)
	if n < len(f.start) {
		e = f.start[n] - 1
	}
	return bytes.TrimSuffix(f.src[s:e], []byte("\r")), s
}

// column turns a position into a byte offset within its line. hcl counts
// columns in grapheme clusters, so the byte offset is preferred when it
// plausibly belongs to the line; ranges built by hand often leave Byte 0.
func (f *sourceFile) column(pos hcl.Pos, text []byte, lineStart int) int {
	if pos.Byte >= lineStart && pos.Byte <= lineStart+len(text) && (pos.Byte > 0 || pos.Line == 1 && pos.Column <= 1) {
		return pos.Byte - lineStart
	}
	off := 0
	for col := 1; col < pos.Column && off < len(text); col++ {
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return off
}

type excerptLine struct {
	n          int
	text       []byte
	from, to   int // underlined byte span
	underlined bool
}

func (p *printer) excerpt(f *sourceFile, r hcl.Range, tone string) {
	startLine := r.Start.Line
	if startLine < 1 || startLine > f.lines() {
		return
	}
	endLine := min(max(r.End.Line, startLine), f.lines())

	var ls []excerptLine
	for n := startLine; n <= endLine; n++ {
		text, off := f.line(n)
		l := excerptLine{n: n, text: text, from: 0, to: len(text), underlined: true}
		if n == startLine {
			l.from = f.column(r.Start, text, off)
		} else {
			l.from = len(text) - len(bytes.TrimLeft(text, " \t"))
		}
		if n == r.End.Line {
			l.to = f.column(r.End, text, off)
		}
		if l.to < l.from {
			l.to = l.from
		}
		if n > startLine && l.to == l.from {
			// A range ending at the start of a line ends on the line
			// before; one ending past EOF is clamped above.
			if n == endLine {
				break
			}
			l.underlined = false
		}
		ls = append(ls, l)
	}
	if len(ls) > maxExcerptLines {
		ls = append(ls[:2:2], excerptLine{n: -1}, ls[len(ls)-2], ls[len(ls)-1])
	}

	width := len(strconv.Itoa(ls[len(ls)-1].n))
	p.nl()
	for _, l := range ls {
		if l.n < 0 {
			p.spaces(2 + width)
			p.str(" ...")
			p.nl()
			continue
		}
		num := strconv.Itoa(l.n)
		p.spaces(2 + width - len(num))
		p.str(num)
		p.str(" | ")
		p.safe(string(l.text))
		p.trimLine()
		p.nl()
		if !l.underlined {
			continue
		}
		p.spaces(2 + width)
		p.str(" | ")
		// Copy tabs from the source so the carets line up however the
		// terminal expands them.
		for _, c := range string(l.text[:l.from]) {
			if c == '\t' {
				p.byte('\t')
			} else {
				p.byte(' ')
			}
		}
		n := max(utf8.RuneCount(l.text[l.from:l.to]), 1)
		p.colored(tone, strings.Repeat("^", n))
		p.nl()
	}
}

// wrapped writes one line of a detail, indented and wrapped at words.
// Lines that start with a space are preformatted, as in Terraform, and
// are left as they are.
func (p *printer) wrapped(line string) {
	const indent = "  "
	if line == "" {
		p.nl()
		return
	}
	if line[0] == ' ' {
		p.str(indent)
		p.safe(line)
		p.nl()
		return
	}
	col := 0
	for _, word := range strings.Fields(line) {
		n := utf8.RuneCountInString(word)
		switch {
		case col == 0:
			p.str(indent)
			col = len(indent)
		case col+1+n > detailWidth:
			p.nl()
			p.str(indent)
			col = len(indent)
		default:
			p.byte(' ')
			col++
		}
		p.safe(word)
		col += n
	}
	p.nl()
}
