package redact

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
)

// MinSecret is the length under which a secret is not looked for.
const MinSecret = 4

// minRun is the shortest run of a secret's form replaced on its own.
const minRun = 6

// A Set holds secrets and the labels that replace them. The zero Set
// holds none; a Set is safe for concurrent use.
type Set struct {
	mu sync.RWMutex
	// grams maps, per run length, every substring of that length of a
	// form of a secret (folded to lower case) to the secret's label and
	// how far a match reaches past it.
	grams map[int]map[string]gram
	seen  map[string]bool
}

// gram is what a run of a form of a secret stands for.
type gram struct {
	label string
	// before and after count the characters beside the run that are
	// also replaced: the base64 characters that mix bits of the secret's
	// first or last bytes with bits of the bytes around it, and so give
	// part of those bytes away (the "D" of "dXNlcjpD..." is most of a
	// "C"). Only a run at the start of a form has before, only one at its
	// end has after.
	before, after int
}

// Add registers secret, to be replaced by label wherever it is found. A
// secret added again keeps its first label; one shorter than MinSecret is
// ignored.
func (s *Set) Add(secret, label string) {
	if len(secret) < MinSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[secret] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
		s.grams = map[int]map[string]gram{}
	}
	s.seen[secret] = true
	for _, f := range forms(secret) {
		text := fold(f.text)
		n := runLength(len(text))
		if s.grams[n] == nil {
			s.grams[n] = map[string]gram{}
		}
		for i := 0; i+n <= len(text); i++ {
			g, ok := s.grams[n][text[i:i+n]]
			if !ok {
				g.label = label
			}
			if i == 0 {
				g.before = max(g.before, f.before)
			}
			if i+n == len(text) {
				g.after = max(g.after, f.after)
			}
			s.grams[n][text[i:i+n]] = g
		}
	}
}

// Empty reports whether the set holds no secret.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.seen) == 0
}

// Whole holds secrets to be found whole in a value, in one of the forms a
// Set looks for: as they are in any letter case, hex- or base64-encoded,
// or as one of their common digests. Unlike a Set it does not look for
// parts: it is the test of a value derived from a secret (a provider's
// echo or checksum of it), where a run shared by chance with an ordinary
// word must not make the value secret. The zero Whole holds none.
type Whole struct {
	forms []string // folded
}

// NewWhole holds secrets; those shorter than MinSecret are ignored.
func NewWhole(secrets ...string) *Whole {
	w := &Whole{}
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		for _, f := range forms(s) {
			w.forms = append(w.forms, fold(f.text))
		}
	}
	return w
}

// Empty reports whether w holds no secret.
func (w *Whole) Empty() bool { return w == nil || len(w.forms) == 0 }

// Holds reports whether text holds one of w's secrets whole, in any of
// their forms.
func (w *Whole) Holds(text string) bool {
	if w.Empty() || text == "" {
		return false
	}
	folded := fold(text)
	for _, f := range w.forms {
		if strings.Contains(folded, f) {
			return true
		}
	}
	return false
}

// runLength is how long a run of a form of length n must be to be
// replaced: the whole of a short form, a third of a long one.
func runLength(n int) int {
	r := (n + 2) / 3
	if r < minRun {
		r = minRun
	}
	if r > n {
		r = n
	}
	return r
}

// String returns text with every secret of the set, whole, encoded,
// digested or in part, replaced by its label. Overlapping and adjacent
// runs are replaced once, by one label.
func (s *Set) String(text string) string {
	return Scrub(text, s)
}

// Scrub returns text with every secret of the sets replaced, as String
// does, in one pass. Scrubbing with one set after another is not the
// same: two secrets may share a run (a common prefix), and the first set
// then replaces the part of the second secret it shares, leaving the
// rest too short for the second set to know it ("(sensitive value)art"
// for "CANARY-part" when "CANARY-prefix" is scrubbed first). Nil and
// empty sets are skipped.
func Scrub(text string, sets ...*Set) string {
	if text == "" {
		return text
	}
	type span struct {
		start, end int
		label      string
	}
	var spans []span
	var folded string
	for _, s := range sets {
		if s == nil {
			continue
		}
		s.mu.RLock()
		if len(s.grams) > 0 && folded == "" {
			folded = fold(text)
		}
		for n, grams := range s.grams {
			for i := 0; i+n <= len(folded); i++ {
				if g, ok := grams[folded[i:i+n]]; ok {
					start, end := i, i+n
					for k := 0; k < g.before && start > 0 && isBase64(text[start-1]); k++ {
						start--
					}
					for k := 0; k < g.after && end < len(text) && isBase64(text[end]); k++ {
						end++
					}
					spans = append(spans, span{start, end, g.label})
				}
			}
		}
		s.mu.RUnlock()
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	at := 0
	for i := 0; i < len(spans); {
		start, end, label := spans[i].start, spans[i].end, spans[i].label
		for i++; i < len(spans) && spans[i].start <= end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(text[at:start])
		b.WriteString(label)
		at = end
	}
	b.WriteString(text[at:])
	return b.String()
}

// fold lower-cases ASCII letters only, byte by byte, so that offsets in
// the folded text are those of the original, whatever its encoding.
func fold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isBase64 reports whether c is a character of the standard or the URL
// base64 alphabet.
func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '-' || c == '_'
}

// form is one way a secret is written, with the number of characters
// before and after it that depend on it in part.
type form struct {
	text          string
	before, after int
}

// mixed is how many base64 characters mix k bytes (0, 1 or 2) at the edge
// of a group of three with the bytes around them: none, two or three.
var mixed = [3]int{0, 2, 3}

// forms lists the ways a secret is written: as is, in hex, in base64 at
// each of the three alignments it can start at inside a longer encoded
// text (the part that does not depend on the bytes around it, with the
// characters beside it that do in part), and as the hex and base64 of its
// common digests. internal/canary lists the same forms on its own on
// purpose: the canaries' scanner is the check on this package, so it must
// not share its code.
func forms(secret string) []form {
	b := []byte(secret)
	out := []form{{text: secret}, {text: hex.EncodeToString(b)}}
	for skip := 0; skip < 3 && skip < len(b); skip++ {
		rest := b[skip:]
		tail := len(rest) % 3
		rest = rest[:len(rest)-tail]
		if len(rest) < 3 {
			continue
		}
		out = append(out,
			form{base64.RawStdEncoding.EncodeToString(rest), mixed[skip], mixed[tail]},
			form{base64.RawURLEncoding.EncodeToString(rest), mixed[skip], mixed[tail]})
	}
	for _, sum := range [][]byte{
		func() []byte { h := md5.Sum(b); return h[:] }(),
		func() []byte { h := sha1.Sum(b); return h[:] }(),
		func() []byte { h := sha256.Sum256(b); return h[:] }(),
		func() []byte { h := sha512.Sum512(b); return h[:] }(),
	} {
		out = append(out, form{text: hex.EncodeToString(sum)}, form{text: base64.StdEncoding.EncodeToString(sum)})
	}
	return out
}
