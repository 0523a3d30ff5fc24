package tether_test

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/tetherhq/tether"
)

func TestNumber(t *testing.T) {
	parsed := func(s string) tether.Number {
		n, err := tether.ParseNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	big2p63, _ := new(big.Float).SetPrec(512).SetString("9223372036854775808")
	for _, c := range []struct {
		name  string
		n     tether.Number
		text  string
		int64 string // "" when Int64 fails
		json  string
	}{
		{"zero Number", tether.Number{}, "", "", "null"},
		{"Int(0)", tether.Int(0), "0", "0", "0"},
		{"Int beyond 2^53", tether.Int(9007199254740993), "9007199254740993", "9007199254740993", "9007199254740993"},
		{"Int min", tether.Int(math.MinInt64), "-9223372036854775808", "-9223372036854775808", "-9223372036854775808"},
		{"Uint max", tether.Uint(math.MaxUint64), "18446744073709551615", "", "18446744073709551615"},
		{"Float(0.1)", tether.Float(0.1), "0.1", "", "0.1"},
		{"Float whole", tether.Float(1e6), "1000000", "1000000", "1000000"},
		{"ParseNumber exponent", parsed("6.02e23"), "602000000000000000000000", "", "602000000000000000000000"},
		{"ParseNumber fraction", parsed("-1.50"), "-1.5", "", "-1.5"},
		{"BigNumber", tether.BigNumber(big2p63), "9223372036854775808", "", "9223372036854775808"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.n.String(); got != c.text {
				t.Errorf("String() = %q, want %q", got, c.text)
			}
			if c.n.IsSet() != (c.text != "") {
				t.Errorf("IsSet() = %v", c.n.IsSet())
			}
			i, err := c.n.Int64()
			if c.int64 == "" && err == nil {
				t.Errorf("Int64() = %d, want an error", i)
			}
			if c.int64 != "" && (err != nil || tether.Int(i).String() != c.int64) {
				t.Errorf("Int64() = %d, %v; want %s", i, err, c.int64)
			}
			b, err := json.Marshal(c.n)
			if err != nil || string(b) != c.json {
				t.Errorf("json.Marshal = %s, %v; want %s", b, err, c.json)
			}
			var back tether.Number
			if err := json.Unmarshal(b, &back); err != nil || back != c.n {
				t.Errorf("json.Unmarshal(%s) = %v, %v", b, back, err)
			}
		})
	}
	if tether.Float(3) != tether.Int(3) || parsed("3.0") != tether.Int(3) {
		t.Error("equal numbers made differently are not ==")
	}
	if _, err := tether.ParseNumber("12abc"); err == nil {
		t.Error("ParseNumber(12abc) succeeded")
	}
	if f, err := tether.Float(0.25).Float64(); err != nil || f != 0.25 {
		t.Errorf("Float64() = %v, %v", f, err)
	}
}
