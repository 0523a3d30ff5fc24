package sdk

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// A token stands for a lazy value inside a string: ${tether:NONCE:N}, where
// NONCE names the table it was issued from (one per stack, plus one for
// values that belong to no stack) and N is its index there. The nonce is
// random, so a string the user wrote never matches by accident, and a
// token carried over from another stack is recognised as such.
const tokenPrefix = "${tether:"

type tokenTable struct {
	nonce  string
	stack  *Stack
	mu     sync.Mutex
	lazies []*lazy
	index  map[*lazy]int
	// made is where the program first asked for each token, for the
	// message about a token a string operation broke.
	made []hcl.Range
	// outputs are the Outputs the program made (a getter's, the result of
	// Apply, Val, Secret or Sprintf), with the stack that made each: a
	// closure may get one where the deducer cannot see it (see
	// closure_opaque.go).
	outputs []madeOutput
	// encoded are the encoded forms of the start of this table's tokens
	// (see encodedToken), made the first time they are looked for.
	encoded []encodedForm
}

type madeOutput struct {
	l   *lazy
	pcs []uintptr
}

// noteMade records l as an Output the program made, where the program's
// code called the SDK. Outputs the SDK makes for itself (a route's
// target) are not the program's and are not recorded, nor are those of a
// program rebuilt to run a closure, which deploys nothing.
func noteMade(l *lazy) {
	if l == nil || l.stack == nil || l.stack.tokens == nil || mode.closure.Load() {
		return
	}
	pcs := callers(2)
	t := l.stack.tokens
	t.mu.Lock()
	t.outputs = append(t.outputs, madeOutput{l: l, pcs: pcs})
	t.mu.Unlock()
}

var tables = struct {
	sync.Mutex
	byNonce map[string]*tokenTable
}{byNonce: map[string]*tokenTable{}}

// shared issues tokens for values that depend on no stack.
var shared = newTokenTable(nil)

func newTokenTable(s *Stack) *tokenTable {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	t := &tokenTable{nonce: hex.EncodeToString(b), stack: s, index: map[*lazy]int{}}
	tables.Lock()
	defer tables.Unlock()
	for tables.byNonce[t.nonce] != nil {
		_, _ = rand.Read(b)
		t.nonce = hex.EncodeToString(b)
	}
	tables.byNonce[t.nonce] = t
	return t
}

// tokenFor returns the token of l, issuing one the first time.
func tokenFor(l *lazy) string {
	t := shared
	if l.stack != nil {
		t = l.stack.tokens
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.index[l]
	if !ok {
		i = len(t.lazies)
		t.lazies = append(t.lazies, l)
		t.index[l] = i
		site, _ := panicSite()
		t.made = append(t.made, site)
	}
	return tokenPrefix + t.nonce + ":" + strconv.Itoa(i) + "}"
}

// tokenPart is a piece of a string: literal text, or a token.
type tokenPart struct {
	lit  string
	lazy *lazy
	// table is the table the token came from.
	table *tokenTable
}

// splitTokens cuts s into literal text and the tokens in it. Text that
// looks like a token but names no table is literal.
func splitTokens(s string) []tokenPart {
	if !strings.Contains(s, tokenPrefix) {
		return nil
	}
	var parts []tokenPart
	lit := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], tokenPrefix)
		if j < 0 {
			break
		}
		start := i + j
		l, t, end := parseToken(s, start)
		if l == nil {
			i = start + len(tokenPrefix)
			continue
		}
		if start > lit {
			parts = append(parts, tokenPart{lit: s[lit:start]})
		}
		parts = append(parts, tokenPart{lazy: l, table: t})
		lit, i = end, end
	}
	if parts == nil {
		return nil
	}
	if lit < len(s) {
		parts = append(parts, tokenPart{lit: s[lit:]})
	}
	return parts
}

// parseToken reads the token starting at s[start:], returning its value,
// its table and where it ends.
func parseToken(s string, start int) (*lazy, *tokenTable, int) {
	rest := s[start+len(tokenPrefix):]
	nonce, rest, ok := strings.Cut(rest, ":")
	if !ok || len(nonce) != 8 {
		return nil, nil, 0
	}
	num, _, ok := strings.Cut(rest, "}")
	if !ok || num == "" || len(num) > 9 {
		return nil, nil, 0
	}
	i, err := strconv.Atoi(num)
	if err != nil {
		return nil, nil, 0
	}
	tables.Lock()
	t := tables.byNonce[nonce]
	tables.Unlock()
	if t == nil {
		return nil, nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= len(t.lazies) {
		return nil, nil, 0
	}
	return t.lazies[i], t, start + len(tokenPrefix) + len(nonce) + 1 + len(num) + 1
}

// brokenToken finds in text that holds no whole token (the literal parts of
// a string) a piece of one: the prefix in any case, a table's nonce, or
// the start of a token cut short at the end. A string operation made it
// (strings.ToUpper, slicing, strings.Replace), and Tether can no longer
// put the value in its place. It returns the piece, and what the token
// stood for and where it was made when the piece says.
func brokenToken(text string) (piece string, l *lazy, made hcl.Range, ok bool) {
	lower := strings.ToLower(text)
	at := strings.Index(lower, tokenPrefix)
	if at < 0 {
		for p := len(tokenPrefix) - 1; p >= 3; p-- {
			if strings.HasSuffix(lower, tokenPrefix[:p]) {
				return text[len(text)-p:], nil, hcl.Range{}, true
			}
		}
	}
	tables.Lock()
	defer tables.Unlock()
	for nonce, t := range tables.byNonce {
		i := strings.Index(lower, nonce)
		if i < 0 {
			continue
		}
		if at < 0 || i < at {
			at = i
		}
		// The index after "NONCE:", when it is still there.
		num := lower[i+len(nonce):]
		num, _ = strings.CutPrefix(num, ":")
		end := 0
		for end < len(num) && end < 9 && num[end] >= '0' && num[end] <= '9' {
			end++
		}
		t.mu.Lock()
		if n, err := strconv.Atoi(num[:end]); err == nil && n < len(t.lazies) {
			l, made = t.lazies[n], t.made[n]
		}
		t.mu.Unlock()
		break
	}
	if at < 0 {
		return "", nil, hcl.Range{}, false
	}
	end := min(len(text), at+24)
	return text[at:end], l, made, true
}

// encodedForm is how a token's start, "${tether:NONCE:", reads once
// encoded inside a longer text, and how to read the token back from
// where that form was found.
type encodedForm struct {
	text   string
	decode func(text string, at int) []byte
}

// encodedForms are the forms an encoding makes of the start of the tokens
// of the table with nonce: hex in either case, and base64 (standard and
// URL alphabets) at each of the three places a byte can have in base64's
// groups of three, cut to the characters the token alone decides.
func encodedForms(nonce string) []encodedForm {
	start := []byte(tokenPrefix + nonce + ":")
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	hexDecode := func(text string, at int) []byte {
		end := at
		for end < len(text) && isHex(text[end]) {
			end++
		}
		b, _ := hex.DecodeString(text[at : at+(end-at)/2*2])
		return b
	}
	forms := []encodedForm{
		{text: hex.EncodeToString(start), decode: hexDecode},
		{text: strings.ToUpper(hex.EncodeToString(start)), decode: hexDecode},
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		raw := enc.WithPadding(base64.NoPadding)
		for off := range 3 {
			e := raw.EncodeToString(append(make([]byte, off), start...))
			// Character k holds bits 6k to 6k+5: the first wholly the
			// token's is the one from bit 8*off, the last the one that
			// ends by the token's last bit.
			first := (8*off + 5) / 6
			last := (8*(off+len(start)))/6 - 1
			lead := first % 4 // characters of its group before it
			forms = append(forms, encodedForm{text: e[first : last+1], decode: func(text string, at int) []byte {
				from := at - lead
				if from < 0 {
					return nil
				}
				end := from
				for end < len(text) && strings.IndexByte(alphabetOf(enc), text[end]) >= 0 {
					end++
				}
				// A final group cut short (by its padding) decodes too,
				// unless one character long, which holds no byte.
				n := end - from
				if n%4 == 1 {
					n--
				}
				b, _ := raw.DecodeString(text[from : from+n])
				return b
			}})
		}
	}
	return forms
}

func alphabetOf(enc *base64.Encoding) string {
	if enc == base64.URLEncoding {
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	}
	return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
}

// encodedToken finds in text a token encoded whole or in part (hex,
// base64: fmt's %x, base64.StdEncoding.EncodeToString), which Tether can
// no more put the value in than a token a string operation changed. It
// returns the encoded piece, and what the token stood for and where it
// was made when the encoded text holds the token whole.
func encodedToken(text string) (piece string, l *lazy, made hcl.Range, ok bool) {
	tables.Lock()
	all := make([]*tokenTable, 0, len(tables.byNonce))
	for _, t := range tables.byNonce {
		all = append(all, t)
	}
	tables.Unlock()
	for _, t := range all {
		t.mu.Lock()
		if t.encoded == nil {
			t.encoded = encodedForms(t.nonce)
		}
		forms := t.encoded
		t.mu.Unlock()
		for _, f := range forms {
			at := strings.Index(text, f.text)
			if at < 0 {
				continue
			}
			piece = text[at:min(len(text), at+len(f.text)+8)]
			decoded := string(f.decode(text, at))
			if i := strings.Index(decoded, tokenPrefix); i >= 0 {
				if tl, tt, _ := parseToken(decoded, i); tl != nil {
					tt.mu.Lock()
					made = tt.made[tt.index[tl]]
					tt.mu.Unlock()
					return piece, tl, made, true
				}
			}
			return piece, nil, hcl.Range{}, true
		}
	}
	return "", nil, hcl.Range{}, false
}
