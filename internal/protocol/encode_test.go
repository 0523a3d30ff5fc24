package protocol

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// TestValueEncoderMatchesGoCty checks the encoder against go-cty's own
// msgpack.Marshal, byte for byte, for values of every kind: what a
// provider decodes must not depend on which of the two encoded it.
func TestValueEncoderMatchesGoCty(t *testing.T) {
	inner := cty.Object(map[string]cty.Type{"port": cty.Number, "cidr": cty.String, "on": cty.Bool})
	innerVal := func(port int64, cidr string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(port), "cidr": cty.StringVal(cidr), "on": cty.True})
	}
	resource := cty.Object(map[string]cty.Type{
		"id":       cty.String,
		"tags":     cty.Map(cty.String),
		"rules":    cty.Set(inner),
		"list":     cty.List(inner),
		"single":   inner,
		"any":      cty.DynamicPseudoType,
		"tuple":    cty.Tuple([]cty.Type{cty.String, cty.Number}),
		"numbers":  cty.List(cty.Number),
		"flags":    cty.Map(cty.Bool),
		"policies": cty.List(cty.DynamicPseudoType),
	})
	full := cty.ObjectVal(map[string]cty.Value{
		"id":       cty.UnknownVal(cty.String),
		"tags":     cty.MapVal(map[string]cty.Value{"b": cty.StringVal("2"), "a": cty.StringVal("1"), "é": cty.NullVal(cty.String)}),
		"rules":    cty.SetVal([]cty.Value{innerVal(443, "10.0.0.0/8"), innerVal(80, "0.0.0.0/0")}),
		"list":     cty.ListVal([]cty.Value{innerVal(22, "x"), cty.UnknownVal(inner), cty.NullVal(inner)}),
		"single":   cty.NullVal(inner),
		"any":      cty.ObjectVal(map[string]cty.Value{"k": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})}),
		"tuple":    cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberFloatVal(1.5)}),
		"numbers":  cty.ListValEmpty(cty.Number),
		"flags":    cty.MapValEmpty(cty.Bool),
		"policies": cty.ListVal([]cty.Value{cty.StringVal("s"), cty.StringVal("t")}),
	})
	withAttr := func(name string, v cty.Value) cty.Value {
		m := full.AsValueMap()
		m[name] = v
		return cty.ObjectVal(m)
	}

	cases := []struct {
		name string
		ty   cty.Type
		v    cty.Value
	}{
		{"string", cty.String, cty.StringVal("hello")},
		{"string empty", cty.String, cty.StringVal("")},
		{"string 31", cty.String, cty.StringVal(strings.Repeat("a", 31))},
		{"string 32", cty.String, cty.StringVal(strings.Repeat("a", 32))},
		{"string 255", cty.String, cty.StringVal(strings.Repeat("a", 255))},
		{"string 256", cty.String, cty.StringVal(strings.Repeat("a", 256))},
		{"string 65535", cty.String, cty.StringVal(strings.Repeat("a", 65535))},
		{"string 65536", cty.String, cty.StringVal(strings.Repeat("a", 65536))},
		{"string unicode", cty.String, cty.StringVal("café ☃ \U0001F600")},
		{"bool true", cty.Bool, cty.True},
		{"bool false", cty.Bool, cty.False},
		{"number float", cty.Number, cty.NumberFloatVal(3.25)},
		{"number huge", cty.Number, cty.NumberVal(new(big.Float).SetPrec(512).SetMantExp(big.NewFloat(1), 300))},
		{"number fraction beyond float64", cty.Number, cty.MustParseNumberVal("0.1000000000000000000000000001")},
		{"number +inf", cty.Number, cty.PositiveInfinity},
		{"number -inf", cty.Number, cty.NegativeInfinity},
		{"null string", cty.String, cty.NullVal(cty.String)},
		{"null object", resource, cty.NullVal(resource)},
		{"nil value", resource, cty.NilVal},
		{"unknown string", cty.String, cty.UnknownVal(cty.String)},
		{"unknown object", resource, cty.UnknownVal(resource)},
		{"unknown not null", cty.String, cty.UnknownVal(cty.String).RefineNotNull()},
		{"unknown prefix", cty.String, cty.UnknownVal(cty.String).Refine().StringPrefix("arn:aws:").NewValue()},
		{"unknown number bounds", cty.Number, cty.UnknownVal(cty.Number).Refine().NumberRangeLowerBound(cty.NumberIntVal(1), true).NewValue()},
		{"unknown list length", cty.List(cty.String), cty.UnknownVal(cty.List(cty.String)).Refine().CollectionLengthLowerBound(1).NewValue()},
		{"unknown set length bounds", cty.Set(cty.String), cty.UnknownVal(cty.Set(cty.String)).Refine().CollectionLengthLowerBound(2).CollectionLengthUpperBound(300).NewValue()},
		{"unknown map not null", cty.Map(cty.String), cty.UnknownVal(cty.Map(cty.String)).RefineNotNull()},
		{"unknown bool not null", cty.Bool, cty.UnknownVal(cty.Bool).RefineNotNull()},
		{"unknown number not null", cty.Number, cty.UnknownVal(cty.Number).RefineNotNull()},
		{"unknown number upper bound", cty.Number, cty.UnknownVal(cty.Number).Refine().NumberRangeUpperBound(cty.NumberFloatVal(2.5), false).NewValue()},
		{"unknown prefix not null", cty.String, cty.UnknownVal(cty.String).Refine().NotNull().StringPrefix("arn:aws:s3:::").NewValue()},
		{"unknown long prefix", cty.String, cty.UnknownVal(cty.String).Refine().StringPrefix(strings.Repeat("p", 300) + "é").NewValue()},
		{"unknown unicode prefix at 255", cty.String, cty.UnknownVal(cty.String).Refine().StringPrefix(strings.Repeat("p", 254) + "éé" + strings.Repeat("q", 10)).NewValue()},
		{"unknown nested refined", cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.List(cty.Number)}), cty.ObjectVal(map[string]cty.Value{
			"a": cty.UnknownVal(cty.String).RefineNotNull(),
			"b": cty.UnknownVal(cty.List(cty.Number)).Refine().CollectionLengthUpperBound(3).NewValue(),
		})},
		{"dynamic unknown", cty.DynamicPseudoType, cty.DynamicVal},
		{"dynamic null", cty.DynamicPseudoType, cty.NullVal(cty.DynamicPseudoType)},
		{"dynamic string", cty.DynamicPseudoType, cty.StringVal("x")},
		{"dynamic unknown string", cty.DynamicPseudoType, cty.UnknownVal(cty.String)},
		{"dynamic null string", cty.DynamicPseudoType, cty.NullVal(cty.String)},
		{"dynamic object", cty.DynamicPseudoType, cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(300)})},
		{"list of 15", cty.List(cty.String), listOf(15)},
		{"list of 16", cty.List(cty.String), listOf(16)},
		{"list of 65536", cty.List(cty.String), listOf(65536)},
		{"empty list", cty.List(inner), cty.ListValEmpty(inner)},
		{"set", cty.Set(cty.String), cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")})},
		{"map of 16", cty.Map(cty.Number), mapOf(16)},
		{"empty object", cty.EmptyObject, cty.EmptyObjectVal},
		{"object of 16", objectOf(16).Type(), objectOf(16)},
		{"resource", resource, full},
		{"unknown nested attribute", resource, withAttr("single", cty.UnknownVal(inner))},
		{"unknown dynamic attribute", resource, withAttr("any", cty.DynamicVal)},

		// Values that do not conform as they are: go-cty converts them.
		{"string for number", cty.Number, cty.StringVal("42")},
		{"number for string", cty.String, cty.NumberIntVal(42)},
		{"list for set", cty.Set(cty.String), cty.ListVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a"), cty.StringVal("a")})},
		{"tuple for list", cty.List(cty.String), cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.True})},
		{"object for map", cty.Map(cty.String), cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x")})},
		{"map for object", inner, cty.MapVal(map[string]cty.Value{"port": cty.StringVal("1"), "cidr": cty.StringVal("c"), "on": cty.StringVal("true")})},
		{"attribute converted", resource, withAttr("id", cty.NumberIntVal(5))},
		{"extra attribute dropped", inner, cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(1), "cidr": cty.StringVal("c"), "on": cty.True, "extra": cty.True})},
		{"optional attributes", cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a": cty.String}, []string{"a"}), cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x")})},
	}
	for i := int64(-70000); i <= 70000; i += 1 + i*i/1000 {
		cases = append(cases, struct {
			name string
			ty   cty.Type
			v    cty.Value
		}{"int", cty.Number, cty.NumberIntVal(i)})
	}
	for _, i := range []int64{127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		cases = append(cases, struct {
			name string
			ty   cty.Type
			v    cty.Value
		}{"int", cty.Number, cty.NumberIntVal(i)})
	}
	// Refinements of every size, across the extension header's forms.
	for n := 1; n < 300; n += 1 + n/8 {
		cases = append(cases, struct {
			name string
			ty   cty.Type
			v    cty.Value
		}{fmt.Sprintf("unknown prefix of %d", n), cty.String, cty.UnknownVal(cty.String).Refine().StringPrefix(strings.Repeat("p", n)).NewValue()})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := ctymsgpack.Marshal(orNull(c.v, c.ty), c.ty)
			enc := NewValueEncoder(c.ty)
			for range 2 { // the second time with the encoder prepared
				got, err := enc.Marshal(c.v)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("error %v, go-cty's %v", err, wantErr)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("encoded %x\ngo-cty: %x", got, want)
				}
			}
		})
	}
}

// TestUnknownRefinementsEncodedHere checks that refined unknowns, but for
// a number's bounds, are encoded without go-cty, as go-cty does.
func TestUnknownRefinementsEncodedHere(t *testing.T) {
	for _, v := range []cty.Value{
		cty.UnknownVal(cty.String),
		cty.UnknownVal(cty.String).RefineNotNull(),
		cty.UnknownVal(cty.String).Refine().NotNull().StringPrefix("arn:").NewValue(),
		cty.UnknownVal(cty.List(cty.Bool)).Refine().CollectionLengthLowerBound(1).CollectionLengthUpperBound(70000).NewValue(),
		cty.DynamicVal,
	} {
		got, ok := appendUnknown(nil, v)
		want, _ := ctymsgpack.Marshal(v, v.Type())
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%#v: %x, %t; go-cty: %x", v, got, ok, want)
		}
	}
	if _, ok := appendUnknown(nil, cty.UnknownVal(cty.Number).Refine().NumberRangeLowerBound(cty.Zero, true).NewValue()); ok {
		t.Error("a number's bounds were encoded here")
	}
}

// TestValueEncoderRefuses checks that what cannot be sent is an error, as
// it is from go-cty.
func TestValueEncoderRefuses(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.List(cty.String)})
	thing := cty.Capsule("thing", reflect.TypeOf(struct{}{}))
	for name, c := range map[string]struct {
		ty cty.Type
		v  cty.Value
	}{
		"marked":                  {cty.String, cty.StringVal("secret").Mark("sensitive")},
		"marked attribute":        {obj, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark("sensitive"), "b": cty.NullVal(cty.List(cty.String))})},
		"marked element":          {obj, cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String), "b": cty.ListVal([]cty.Value{cty.StringVal("x").Mark("sensitive")})})},
		"missing attribute":       {obj, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x")})},
		"not a number":            {cty.Number, cty.StringVal("forty-two")},
		"object for string":       {cty.String, cty.EmptyObjectVal},
		"capsule":                 {thing, cty.CapsuleVal(thing, &struct{}{})},
		"element not convertible": {cty.List(cty.Number), cty.ListVal([]cty.Value{cty.StringVal("x")})},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ctymsgpack.Marshal(c.v, c.ty); err == nil {
				t.Fatal("go-cty encodes it: the case is wrong")
			}
			if b, err := NewValueEncoder(c.ty).Marshal(c.v); err == nil {
				t.Fatalf("encoded as %x", b)
			}
		})
	}
}

// TestValueEncoderConcurrent encodes with one encoder from many
// goroutines, as a plan does for the instances of one resource type.
func TestValueEncoderConcurrent(t *testing.T) {
	ty := cty.Object(map[string]cty.Type{"name": cty.String, "rules": cty.List(cty.Object(map[string]cty.Type{"port": cty.Number}))})
	enc := NewValueEncoder(ty)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			v := cty.ObjectVal(map[string]cty.Value{
				"name":  cty.StringVal(strings.Repeat("n", i)),
				"rules": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(int64(i))})}),
			})
			want, _ := ctymsgpack.Marshal(v, ty)
			for range 100 {
				if got, err := enc.Marshal(v); err != nil || !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: %x, %v; want %x", i, got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func orNull(v cty.Value, ty cty.Type) cty.Value {
	if v == cty.NilVal {
		return cty.NullVal(ty)
	}
	return v
}

func listOf(n int) cty.Value {
	vs := make([]cty.Value, n)
	for i := range vs {
		vs[i] = cty.StringVal(strings.Repeat("x", i%40))
	}
	return cty.ListVal(vs)
}

func mapOf(n int) cty.Value {
	m := map[string]cty.Value{}
	for i := range n {
		m[strings.Repeat("k", i+1)] = cty.NumberIntVal(int64(i * 1000))
	}
	return cty.MapVal(m)
}

func objectOf(n int) cty.Value {
	m := map[string]cty.Value{}
	for i := range n {
		m[string(rune('a'+i))] = cty.StringVal(strings.Repeat("v", i))
	}
	return cty.ObjectVal(m)
}
