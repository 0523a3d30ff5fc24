package ui

import (
	"io"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// ANSI SGR sequences. Terraform users know these colours by meaning, so
// each is used for the same thing it means there.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// flushAt bounds the memory a rendering holds: a plan of 100,000 changes
// would otherwise sit in one buffer, and a writer to a pipe should see
// output as it is produced.
const flushAt = 64 << 10

// printer appends text to a byte slice and hands it to out in large
// pieces. Everything that renders values or plans goes through it so that
// FormatValue and RenderPlan cannot drift apart.
type printer struct {
	out     io.Writer // nil when the caller wants the bytes (FormatValue)
	buf     []byte
	err     error
	color   bool
	symbols bool // false renders plain HCL-like values with no +/~/- column

	// replace holds RequiresReplace of the change being rendered.
	replace []cty.Path
	// showAll shows unchanged attributes too: Terraform lists the whole
	// object it imports.
	showAll bool
	// legacy is set while a resource with a schema is rendered: the
	// elements of its sets are shown with Terraform's rule for empty
	// strings (see legacySet).
	legacy bool
	// spare holds the entry lists block has finished with; attrsB and
	// attrsA are objectEntries' room for the attributes it walks.
	spare          [][]entry
	attrsB, attrsA []attrVal
	// legacyCache holds legacyReaches' answers.
	legacyCache map[legacyKey]bool
	// movedFrom maps the new address of each moved object of the plan
	// being rendered to its old one.
	movedFrom map[string]string
}

func (p *printer) str(s string) { p.buf = append(p.buf, s...) }

func (p *printer) byte(b byte) { p.buf = append(p.buf, b) }

func (p *printer) nl() {
	p.buf = append(p.buf, '\n')
	if p.out != nil && len(p.buf) >= flushAt {
		p.flush()
	}
}

func (p *printer) flush() error {
	if p.out == nil || len(p.buf) == 0 {
		return p.err
	}
	if p.err == nil {
		_, p.err = p.out.Write(p.buf)
	}
	p.buf = p.buf[:0]
	return p.err
}

// trimLine drops spaces at the end of the current line, so that empty
// heredoc lines and empty comments do not leave trailing whitespace.
func (p *printer) trimLine() {
	i := len(p.buf)
	for i > 0 && p.buf[i-1] == ' ' {
		i--
	}
	p.buf = p.buf[:i]
}

const spaceRun = "                                                                "

func (p *printer) spaces(n int) {
	for n > len(spaceRun) {
		p.str(spaceRun)
		n -= len(spaceRun)
	}
	if n > 0 {
		p.str(spaceRun[:n])
	}
}

func (p *printer) colored(code, s string) {
	if p.color {
		p.str(code)
		p.str(s)
		p.str(ansiReset)
		return
	}
	p.str(s)
}

// indent starts a line at the given nesting depth with the action column
// Terraform uses: four spaces a level, then a three-wide symbol and a space.
func (p *printer) indent(depth int, c change) {
	p.spaces(4 * depth)
	if !p.symbols {
		return
	}
	switch c {
	case add:
		p.str("  ")
		p.colored(ansiGreen, "+")
		p.byte(' ')
	case remove:
		p.str("  ")
		p.colored(ansiRed, "-")
		p.byte(' ')
	case modify:
		p.str("  ")
		p.colored(ansiYellow, "~")
		p.byte(' ')
	default:
		p.str("    ")
	}
}

// padded writes s and then spaces up to width columns.
func (p *printer) padded(s string, width int) {
	p.str(s)
	p.spaces(width - utf8.RuneCountInString(s))
}
