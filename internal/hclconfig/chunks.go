package hclconfig

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// chunkSize is the least size of the pieces a large file is parsed in
// (a variable for the tests, which cut small files). hclsyntax appends
// each piece's tokens (96 bytes each) to a slice of its own: doubled up
// to 256 of them, then grown by about a quarter at a time, so that a
// 32 KiB piece (some 10,000 tokens) allocated about five times its
// tokens, a 2 KiB piece (some 700) two to three times. At 100,000
// resources that is 1.52 GB allocated against 1.18 GB in all, and a
// tenth of the collector's work; smaller pieces add more per-piece
// allocations than they save.
var chunkSize = 2 << 10

// parseChunked parses a large native-syntax file of top-level blocks as
// hclsyntax.ParseConfig does, a piece of blocks at a time, and reports
// whether it could. hclsyntax lexes a whole file into one slice of tokens
// grown by appending: for a generated file of thousands of resources that
// is tens of megabytes copied and collected for a few hundred kilobytes of
// text, the largest cost of reading it. Each piece is parsed from its own
// position in the file, so every range is the one a whole parse gives.
//
// The pieces are cut before a line that starts a top-level item, as far
// as a quick scan of strings, comments and brackets can tell. A cut the
// scan gets wrong leaves a piece with an unterminated string, heredoc,
// comment or block, which does not parse: parseChunked then reports false,
// as it does for a file with any diagnostic or a top-level argument, and
// the caller parses the file whole, with hclsyntax's own diagnostics.
func parseChunked(src []byte, filename string) (*hcl.File, bool) {
	cuts := cutPoints(src)
	if len(cuts) == 0 {
		return nil, false
	}
	// The file's body is the one an empty parse gives, with the pieces'
	// blocks: its navigation (hcl.File.Nav) then refers to it.
	file, diags := hclsyntax.ParseConfig(nil, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, false
	}
	body := file.Body.(*hclsyntax.Body)
	// Each piece's start, then the pieces parsed side by side (each is a
	// parse of its own), then joined in order.
	pieces := make([]chunk, len(cuts)+1)
	pos := hcl.InitialPos
	start := 0
	for i := range pieces {
		end := len(src)
		if i < len(cuts) {
			end = cuts[i]
		}
		pieces[i] = chunk{src: src[start:end:end], pos: pos}
		pos.Line += bytes.Count(src[start:end], []byte{'\n'})
		pos.Byte = end
		start = end
	}
	parseChunks(pieces, filename)
	blocks := 0
	for _, c := range pieces {
		if c.body == nil || len(c.body.Attributes) > 0 {
			return nil, false
		}
		blocks += len(c.body.Blocks)
	}
	body.Blocks = slices.Grow(body.Blocks, blocks)
	for i, c := range pieces {
		body.Blocks = append(body.Blocks, c.body.Blocks...)
		if i == 0 {
			body.SrcRange = c.body.SrcRange
		}
		body.SrcRange.End, body.EndRange = c.body.SrcRange.End, c.body.EndRange
	}
	file.Bytes = src
	return file, true
}

// chunk is a piece of a file: its text, where it starts in the file, and
// its body once parsed, nil when the parse had anything to say.
type chunk struct {
	src  []byte
	pos  hcl.Pos
	body *hclsyntax.Body
}

// parseChunks parses pieces side by side.
func parseChunks(pieces []chunk, filename string) {
	inParallel(len(pieces), func(i int) {
		c := &pieces[i]
		if f, diags := hclsyntax.ParseConfig(c.src, filename, c.pos); len(diags) == 0 {
			c.body = f.Body.(*hclsyntax.Body)
		}
	})
}

// inParallel calls f for each of 0 to n-1 on as many goroutines as the
// process has processors, and returns when every call has.
func inParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers < 2 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}

// cutPoints are the offsets at least chunkSize apart where a line starts
// at the top level of src, outside any bracket, string, heredoc or comment
// as far as a scan of those can tell, with a letter.
func cutPoints(src []byte) []int {
	var cuts []int
	depth, last := 0, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			next := i + 1
			if depth == 0 && next-last >= chunkSize && next < len(src) && isLetter(src[next]) {
				cuts = append(cuts, next)
				last = next
			}
		case c == '{' || c == '[' || c == '(':
			depth++
		case c == '}' || c == ']' || c == ')':
			depth--
		case c == '"':
			i = skipString(src, i+1)
		case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = skipLine(src, i)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return nil
			}
			i += end + 3
		case c == '<' && i+1 < len(src) && src[i+1] == '<':
			if i = skipHeredoc(src, i+2); i < 0 {
				return nil
			}
		}
		if depth < 0 {
			return nil
		}
	}
	return cuts
}

// skipString returns the offset of the quote that ends the string whose
// text starts at i (escapes and template sequences skipped), or of the
// newline a quoted string cannot hold.
func skipString(src []byte, i int) int {
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case c == '"' || c == '\n':
			return i
		case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == c:
			i++ // $${ and %%{ are literal
		case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
			i = skipSequence(src, i+2)
		}
	}
	return i
}

// skipSequence returns the offset of the brace that ends the template
// sequence whose expression starts at i.
func skipSequence(src []byte, i int) int {
	depth := 1
	for ; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		case '"':
			i = skipString(src, i+1)
		}
	}
	return i
}

func skipLine(src []byte, i int) int {
	if n := bytes.IndexByte(src[i:], '\n'); n >= 0 {
		return i + n - 1 // the newline itself is scanned
	}
	return len(src)
}

// skipHeredoc returns the offset of the newline that ends the heredoc
// whose introducer (after <<) starts at i, or -1 when it cannot tell.
func skipHeredoc(src []byte, i int) int {
	if i < len(src) && src[i] == '-' {
		i++
	}
	eol := bytes.IndexByte(src[i:], '\n')
	if eol < 0 {
		return -1
	}
	marker := bytes.TrimSpace(src[i : i+eol])
	if len(marker) == 0 {
		return -1
	}
	for j := i + eol + 1; j < len(src); {
		n := bytes.IndexByte(src[j:], '\n')
		line := src[j:]
		if n >= 0 {
			line = src[j : j+n]
		}
		if bytes.Equal(bytes.TrimSpace(line), marker) {
			if n < 0 {
				return len(src)
			}
			return j + n - 1
		}
		if n < 0 {
			return -1
		}
		j += n + 1
	}
	return -1
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
