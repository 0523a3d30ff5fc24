package plugin

import (
	"math/big"
	"testing"

	"github.com/tetherhq/tether/internal/protocol"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Numbers too big for a float64 to hold exactly survive the client's own
// conversions, in both encodings. (TestDynamicValue takes them through
// both protocol versions and a provider.)
func TestNumberPrecisionEncodings(t *testing.T) {
	for _, v := range []cty.Value{
		cty.NumberIntVal(7227701560655103598),
		cty.NumberIntVal(-7227701560655103598),
		cty.MustParseNumberVal("9007199254740993"),
	} {
		t.Run(v.AsBigFloat().Text('f', -1), func(t *testing.T) {
			dv, err := protocol.EncodeValue(v, cty.Number)
			if err != nil {
				t.Fatal(err)
			}
			got, err := protocol.DecodeValue(dv, cty.Number)
			if err != nil {
				t.Fatal(err)
			}
			checkExact(t, "msgpack", cty.TupleVal([]cty.Value{got}), []cty.Value{v})
			js, err := ctyjson.Marshal(v, cty.Number)
			if err != nil {
				t.Fatal(err)
			}
			dv.MsgPack, dv.JSON = nil, js
			got, err = protocol.DecodeValue(dv, cty.Number)
			if err != nil {
				t.Fatal(err)
			}
			checkExact(t, "json", cty.TupleVal([]cty.Value{got}), []cty.Value{v})
		})
	}
}

func checkExact(t *testing.T, what string, got cty.Value, want []cty.Value) {
	t.Helper()
	if !got.Type().IsTupleType() || got.LengthInt() != len(want) {
		t.Fatalf("%s: %#v", what, got)
	}
	for i, w := range want {
		g := got.Index(cty.NumberIntVal(int64(i)))
		if g.IsNull() || !g.IsKnown() || g.Type() != cty.Number {
			t.Errorf("%s[%d]: %#v", what, i, g)
			continue
		}
		gf, wf := g.AsBigFloat(), w.AsBigFloat()
		if gf.Cmp(wf) != 0 {
			t.Errorf("%s[%d] = %s, want %s", what, i, gf.Text('f', -1), wf.Text('f', -1))
		}
		if wi, acc := wf.Int(nil); acc == big.Exact {
			if gi, acc := gf.Int(nil); acc != big.Exact || gi.Cmp(wi) != 0 {
				t.Errorf("%s[%d] = %s, not the integer %s", what, i, gf.Text('f', -1), wi)
			}
		}
	}
}
