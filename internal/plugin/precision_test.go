package plugin

import (
	"context"
	"math/big"
	"testing"

	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Numbers too big for a float64 to hold exactly (IDs, mostly) come back
// exactly: through MessagePack in plan, apply and read, through JSON in
// state upgrades, in both protocol versions.
func TestNumberPrecision(t *testing.T) {
	const id = 7227701560655103598
	exact := []cty.Value{
		cty.NumberIntVal(id),
		cty.NumberIntVal(-id),
		cty.NumberUIntVal(18446744073709551615),
		cty.MustParseNumberVal("123456789012345678901234567890.0000000001"),
	}
	input := cty.TupleVal(exact)
	protocols(t, func(t *testing.T, c *Client) {
		ctx := context.Background()
		ty := c.resTypes["tether_value"]
		cfg := valueConfig(input, cty.NullVal(cty.Number))
		plan := c.PlanResourceChange(ctx, provider.PlanRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), ProposedNewState: cfg, Config: cfg})
		noErrors(t, "plan", plan.Diagnostics)
		checkExact(t, "planned", plan.PlannedState.GetAttr("output"), exact)
		apply := c.ApplyResourceChange(ctx, provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: cfg})
		noErrors(t, "apply", apply.Diagnostics)
		checkExact(t, "applied", apply.NewState.GetAttr("output"), exact)
		read := c.ReadResource(ctx, provider.ReadRequest{TypeName: "tether_value", PriorState: apply.NewState})
		noErrors(t, "read", read.Diagnostics)
		checkExact(t, "read", read.NewState.GetAttr("output"), exact)

		raw, err := ctyjson.Marshal(apply.NewState, ty)
		if err != nil {
			t.Fatal(err)
		}
		up := c.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: "tether_value", RawStateJSON: raw})
		noErrors(t, "upgrade", up.Diagnostics)
		checkExact(t, "upgraded", up.UpgradedState.GetAttr("output"), exact)
	})
}

// The client's own conversions, both encodings, without a provider.
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
