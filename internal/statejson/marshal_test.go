package statejson_test

import (
	"bytes"
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/statejson"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// TestMarshalMatchesCtyJSON: what Marshal writes is byte for byte what
// ctyjson.Marshal writes (state v4 keeps its bytes), and its errors are
// ctyjson's; the values state is written from take the fast path.
func TestMarshalMatchesCtyJSON(t *testing.T) {
	type tc struct {
		name string
		ty   cty.Type
		v    cty.Value
		fast bool // written without ctyjson
	}
	var cases []tc
	for _, c := range decodeCases() {
		cases = append(cases, tc{c.name, c.ty, c.v, true})
	}
	str := func(s string) tc { return tc{"string " + s, cty.String, cty.StringVal(s), true} }
	num := func(name string, f *big.Float) tc { return tc{"number " + name, cty.Number, cty.NumberVal(f), true} }
	obj := cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.Number})
	cases = append(cases,
		str(""), str("plain"), str(`quote " and \ backslash`), str("<html> & co"), str("tab\tnew\nline\x01\x7f"),
		str("caf\u00e9 \u2028 \u2029 ✓"), str("\xff invalid"), str("astral 😀"),
		num("-0", big.NewFloat(math.Copysign(0, -1))), num("huge", new(big.Float).SetMantExp(big.NewFloat(1), 2000)),
		num("tiny", big.NewFloat(1e-300)), num("third", new(big.Float).Quo(big.NewFloat(1), big.NewFloat(3))),
		tc{"number +inf", cty.Number, cty.PositiveInfinity, false},
		tc{"unknown", cty.String, cty.UnknownVal(cty.String), false},
		tc{"unknown attribute", obj, cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String), "b": cty.Zero}), false},
		tc{"marked", cty.String, cty.StringVal("s").Mark("sensitive"), false},
		tc{"marked attribute", obj, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("s").Mark("x"), "b": cty.Zero}), false},
		tc{"number as string (converted)", cty.String, cty.NumberIntVal(12), false},
		tc{"string as number (converted)", cty.Number, cty.StringVal("12.5"), false},
		tc{"string as bool (refused)", cty.Bool, cty.StringVal("maybe"), false},
		tc{"null of another type", cty.String, cty.NullVal(cty.Number), false},
		tc{"null of an unconvertible type", cty.List(cty.String), cty.NullVal(cty.Bool), false},
		tc{"object missing an attribute", obj, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x")}), false},
		tc{"object with an extra attribute", obj, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.Zero, "c": cty.True}), false},
		tc{"empty list of another type", cty.List(cty.Bool), cty.ListValEmpty(cty.Number), false},
		tc{"empty list of a convertible type", cty.List(cty.String), cty.ListValEmpty(cty.Number), false},
		tc{"list element converted", cty.List(cty.String), cty.ListVal([]cty.Value{cty.NumberIntVal(1)}), false},
		tc{"list as set", cty.Set(cty.String), cty.ListVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a"), cty.StringVal("b")}), false},
		tc{"map", cty.Map(cty.String), cty.MapVal(map[string]cty.Value{"z": cty.StringVal("1"), "<k>": cty.StringVal("2"), "é": cty.NullVal(cty.String)}), true},
		tc{"object as map", cty.Map(cty.String), cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("1")}), false},
		tc{"tuple of another length", cty.Tuple([]cty.Type{cty.String}), cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}), false},
		tc{"dynamic list", cty.DynamicPseudoType, cty.ListVal([]cty.Value{cty.StringVal("a")}), true},
		tc{"dynamic object", cty.DynamicPseudoType, cty.ObjectVal(map[string]cty.Value{"k": cty.NumberIntVal(1), "<": cty.True}), true},
		tc{"dynamic unknown", cty.DynamicPseudoType, cty.DynamicVal, false},
		tc{"dynamic null string", cty.DynamicPseudoType, cty.NullVal(cty.String), true},
		tc{"list of dynamic, empty", cty.List(cty.DynamicPseudoType), cty.ListValEmpty(cty.String), false},
		tc{"dynamic capsule", cty.DynamicPseudoType, cty.CapsuleVal(cty.Capsule("c", reflect.TypeOf("")), new(string)), false},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := ctyjson.Marshal(c.v, c.ty)
			got, gotErr := statejson.Marshal(c.v, c.ty)
			if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
				t.Fatalf("error %v, ctyjson's %v", gotErr, wantErr)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("wrote\n%s\nctyjson wrote\n%s", got, want)
			}
			if _, fast := statejson.AppendValue(nil, c.v, c.ty); fast != c.fast {
				t.Errorf("written by the fast path: %v, want %v", fast, c.fast)
			}
		})
	}
}

// TestMarshalAllocations: recording an object (here tether_value's, the
// most common) costs its buffer, where ctyjson's buffer, paths, key values
// and strings made 32 allocations.
func TestMarshalAllocations(t *testing.T) {
	ty, v := tetherValue(t)
	if n := testing.AllocsPerRun(100, func() { statejson.Marshal(v, ty) }); n > 1 {
		t.Errorf("Marshal made %v allocations, want 1 (its buffer)", n)
	}
}

func tetherValue(t testing.TB) (cty.Type, cty.Value) {
	schema, _ := tetherprovider.New().GetSchema()
	rs, _, err := schema.Resources.Get("tether_value")
	if err != nil {
		t.Fatal(err)
	}
	return rs.Block.ImpliedType(), cty.ObjectVal(map[string]cty.Value{
		"input": cty.StringVal("v12345"), "output": cty.StringVal("v12345"),
		"delay_ms": cty.NullVal(cty.Number), "id": cty.StringVal("72e84963c2a144a0"),
	})
}

func BenchmarkMarshal(b *testing.B) {
	ty, v := tetherValue(b)
	for _, m := range []struct {
		name string
		f    func(cty.Value, cty.Type) ([]byte, error)
	}{{"ctyjson", ctyjson.Marshal}, {"statejson", statejson.Marshal}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.f(v, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUnmarshalAllocations: reading a recorded object back (every plan
// does, for every object) allocates what the value holds, not a copy of
// each key read or of a dynamic value's type name: tether_value's object
// took 26 allocations, and takes go-cty's object (its value map, its type
// and the type's map, and the map ObjectVal is given: 5), its strings and
// their values (3 each).
func TestUnmarshalAllocations(t *testing.T) {
	ty, v := tetherValue(t)
	raw, err := statejson.Marshal(v, ty)
	if err != nil {
		t.Fatal(err)
	}
	// The object's map (two), its strings' data (one: the input and the
	// output are one value), and, but for UnmarshalShared, the two
	// strings' texts.
	for _, c := range []struct {
		name      string
		unmarshal func([]byte, cty.Type) (cty.Value, error)
		want      float64
	}{
		{"Unmarshal", statejson.Unmarshal, 5},
		{"UnmarshalShared", statejson.UnmarshalShared, 3},
	} {
		if n := testing.AllocsPerRun(100, func() { c.unmarshal(raw, ty) }); n > c.want {
			t.Errorf("%s made %v allocations, want at most %v", c.name, n, c.want)
		}
	}
}
