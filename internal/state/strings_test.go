package state

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestDecodeStrings checks the fast path against encoding/json on what
// json.Marshal writes for awkward addresses, and on hand-written JSON the
// fast path must hand over rather than misread.
func TestDecodeStrings(t *testing.T) {
	pieces := []string{
		"a", `module.net.tether_file.conf["a"]`, `\`, `"`, "<>&", "\n\t\r\b\f", "\x00\x1f",
		"é", "日本", "😀", "\u2028\u2029", "\xff\xfe", "/", ",", "[", "]", "\\u0041",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(in []byte) {
		t.Helper()
		var want []string
		wantErr := json.Unmarshal(in, &want)
		got, err := decodeStrings(in)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decode %q: got %q, %v; encoding/json says %q, %v", in, got, err, want, wantErr)
		}
	}
	for range 5000 {
		addrs := make([]string, rng.IntN(5))
		for i := range addrs {
			for range rng.IntN(6) {
				addrs[i] += pieces[rng.IntN(len(pieces))]
			}
		}
		b, err := json.Marshal(addrs)
		if err != nil {
			t.Fatal(err)
		}
		check(b)
	}
	for _, s := range []string{
		`[]`, `[ ]`, `["a" , "b"]`, `["\ud83d\ude00"]`, `["\ud83d"]`, `["\u00e9\u00E9"]`, `["a\/b"]`,
		`["a"`, `["a",]`, `["a"]]`, `["a\"]`, `["\u12"]`, `["\x"]`, `[1]`, `null`, `["a"]x`, `[""]`, `["",""]`,
	} {
		check([]byte(s))
	}
}
