package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	const secret = "CANARY-5f1e9a77c2"
	const label = "(reference env KEY)"
	sum := sha256.Sum256([]byte(secret))
	tests := []struct {
		name, in, want string
	}{
		{"whole", "bad key " + secret + ".", "bad key " + label + "."},
		{"twice", secret + "," + secret, label + "," + label},
		{"upper case", "KEY=" + strings.ToUpper(secret), "KEY=" + label},
		{"lower case", "key=" + strings.ToLower(secret) + "!", "key=" + label + "!"},
		{"first half", "key starts " + secret[:8] + "...", "key starts " + label + "..."},
		{"last half", "...ends " + secret[9:], "...ends " + label},
		{"split across lines", "key " + secret[:9] + "\n" + secret[9:], "key " + label + "\n" + label},
		{"hex", "0x" + hex.EncodeToString([]byte(secret)), "0x" + label},
		// Base64 text is replaced with the characters beside the secret
		// that hold some of its bits: "dXNlcjpD..." keeps only "dXNlcj",
		// which "user:" alone decides ("pD" would give most of the "C"
		// away), and the "Mg" before the padding that encodes the last "2".
		{"base64 inside a longer text", "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)), "Basic dXNlcj" + label + "=="},
		{"base64 of the secret alone", base64.StdEncoding.EncodeToString([]byte(secret)), label + "="},
		{"base64 with a byte on each side", base64.StdEncoding.EncodeToString([]byte("ab" + secret + "x")), "YW" + label + "g="},
		{"base64url, two bytes before", base64.RawURLEncoding.EncodeToString([]byte("a" + secret + "xy")), "Y" + label + "eHk"},
		{"base64 at the end of a sentence", "token " + base64.StdEncoding.EncodeToString([]byte(secret)) + ".", "token " + label + "=."},
		{"sha256", "digest " + hex.EncodeToString(sum[:]), "digest " + label},
		{"sha256 base64", "digest " + base64.StdEncoding.EncodeToString(sum[:]), "digest " + label},
		{"short run kept", "CANAR is a bird", "CANAR is a bird"},
		{"unrelated", "nothing to see", "nothing to see"},
		{"invalid utf-8 around", "\xff\xfe" + secret + "\xff", "\xff\xfe" + label + "\xff"},
	}
	var s Set
	s.Add(secret, label)
	s.Add("abc", "(too short)")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEmptySet(t *testing.T) {
	var s *Set
	if got := s.String("x"); got != "x" || !s.Empty() {
		t.Errorf("nil set changed text: %q", got)
	}
	var z Set
	z.Add("abc", "(short)")
	if !z.Empty() || z.String("abc") != "abc" {
		t.Error("a secret shorter than MinSecret was registered")
	}
}

func TestWholeHolds(t *testing.T) {
	const secret = "CANARY-5f1e9a77c2"
	sum := sha256.Sum256([]byte(secret))
	tests := []struct {
		name, in string
		want     bool
	}{
		{"whole", "key=" + secret, true},
		{"upper case", strings.ToUpper(secret), true},
		{"hex", hex.EncodeToString([]byte(secret)), true},
		{"base64 inside a longer text", base64.StdEncoding.EncodeToString([]byte("user:" + secret)), true},
		{"sha256", hex.EncodeToString(sum[:]), true},
		{"sha256 base64", base64.StdEncoding.EncodeToString(sum[:]), true},
		// A part is scrubbed from text, but does not make a value secret.
		{"a third", "starts " + secret[:8], false},
		{"unrelated", "nothing to see", false},
	}
	w := NewWhole(secret, "abc")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := w.Holds(tt.in); got != tt.want {
				t.Errorf("Holds(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	var empty *Whole
	if empty.Holds(secret) || NewWhole("abc").Holds("abc") {
		t.Error("an empty Whole holds a secret")
	}
}

// TestScrubSharedRun: two secrets that share a run (their first eight
// characters here) are scrubbed in one pass, so that neither set takes
// the shared part of the other's secret and leaves its rest too short
// to be found. Scrubbed one set after the other, "starts CANARY-part..."
// came out "starts (sensitive value)art...".
func TestScrubSharedRun(t *testing.T) {
	const prefix, part = "CANARY-prefix-81f0a3c5e6", "CANARY-part-c3d5e7f9a1"
	const label = "(sensitive value)"
	provider, instance := &Set{}, &Set{}
	provider.Add(prefix, label)
	instance.Add(part, label)
	tests := []struct{ in, want string }{
		{"starts " + part[:len(part)/2] + "...", "starts " + label + "..."},
		{"starts " + strings.ToUpper(part[:len(part)/2]) + "...", "starts " + label + "..."},
		{"ends " + part[len(part)/2:], "ends " + label},
		{"both " + prefix[:9] + " " + part[:9], "both " + label + " " + label},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Scrub(tt.in, provider, nil, instance); got != tt.want {
				t.Errorf("Scrub(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
