package state

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// Dependencies are kept as a JSON array so the file stays readable with
// the sqlite3 shell (and its json functions). Decoding them through
// encoding/json's reflection was the largest cost of Load after SQLite
// itself, so decodeStrings parses the arrays json.Marshal writes directly
// and hands anything else to encoding/json, which stays the reference.
func decodeStrings(b []byte) ([]string, error) {
	if out, ok := fastDecodeStrings(b); ok {
		return out, nil
	}
	var out []string
	err := json.Unmarshal(b, &out)
	return out, err
}

// fastDecodeStrings decodes a compact JSON array of strings. ok is false
// for anything it does not handle (whitespace, invalid UTF-8, surrogate
// escapes, malformed input), never for a wrong answer.
func fastDecodeStrings(b []byte) (out []string, ok bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	if len(b) == 2 {
		return []string{}, true
	}
	n := 1
	for _, c := range b {
		if c == ',' {
			n++ // an upper bound: commas inside strings count too
		}
	}
	out = make([]string, 0, n)
	i := 1
	for {
		if b[i] != '"' {
			return nil, false
		}
		i++
		start, escaped := i, false
		for ; i < len(b) && b[i] != '"'; i++ {
			switch c := b[i]; {
			case c == '\\':
				escaped = true
				i++ // the escaped byte cannot end the string
			case c < 0x20:
				return nil, false
			}
		}
		if i >= len(b) {
			return nil, false
		}
		raw := b[start:i]
		i++ // past the closing quote; b ends in ']', so b[i] exists
		var s string
		if escaped {
			if s, ok = unescapeJSON(raw); !ok {
				return nil, false
			}
		} else {
			if !utf8.Valid(raw) {
				return nil, false
			}
			s = string(raw)
		}
		out = append(out, s)
		switch {
		case b[i] == ']' && i == len(b)-1:
			return out, true
		case b[i] == ',':
			i++
		default:
			return nil, false
		}
	}
}

func unescapeJSON(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= len(raw) {
				return "", false
			}
			var r rune
			for _, h := range raw[i+1 : i+5] {
				switch {
				case '0' <= h && h <= '9':
					r = r<<4 | rune(h-'0')
				case 'a' <= h && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case 'A' <= h && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return "", false
				}
			}
			if utf16.IsSurrogate(r) {
				return "", false // json.Marshal never writes these; let encoding/json pair them
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}
