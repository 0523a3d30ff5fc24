package tether

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
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
