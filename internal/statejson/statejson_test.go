package statejson_test

import (
	"encoding/json"
	"math/big"
	"strconv"
	"testing"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/statejson"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// decodeCases are values of the shapes state holds, each with the type it
// is stored under.
func decodeCases() []struct {
	name string
	ty   cty.Type
	v    cty.Value
} {
	big1, _, _ := big.ParseFloat("123456789012345678901234567890.125", 10, 512, big.ToNearestEven)
	obj := cty.Object(map[string]cty.Type{
		"s": cty.String, "n": cty.Number, "b": cty.Bool, "d": cty.DynamicPseudoType,
		"l": cty.List(cty.String), "set": cty.Set(cty.Number), "m": cty.Map(cty.Bool),
		"t":      cty.Tuple([]cty.Type{cty.String, cty.Number}),
		"o":      cty.Object(map[string]cty.Type{"x": cty.String, "y": cty.List(cty.Object(map[string]cty.Type{"z": cty.Number}))}),
		"empty":  cty.EmptyObject,
		"blocks": cty.Set(cty.Object(map[string]cty.Type{"k": cty.String})),
	})
	full := cty.ObjectVal(map[string]cty.Value{
		"s": cty.StringVal("caf\u0065\u0301 ✓"), "n": cty.NumberVal(big1), "b": cty.True,
		"d": cty.ObjectVal(map[string]cty.Value{
			"list": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
			"tup":  cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("x"), cty.NullVal(cty.Bool)}),
			"map":  cty.MapVal(map[string]cty.Value{"k": cty.NumberFloatVal(0.5)}),
			"set":  cty.SetVal([]cty.Value{cty.StringVal("q")}),
			"nest": cty.ObjectVal(map[string]cty.Value{"deep": cty.ListValEmpty(cty.Number)}),
		}),
		"l":      cty.ListVal([]cty.Value{cty.StringVal(""), cty.NullVal(cty.String)}),
		"set":    cty.SetVal([]cty.Value{cty.NumberIntVal(-3), cty.NumberFloatVal(1e-9), cty.NumberIntVal(1 << 60)}),
		"m":      cty.MapVal(map[string]cty.Value{"a": cty.True, "b": cty.False, "ü": cty.NullVal(cty.Bool)}),
		"t":      cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.NumberIntVal(7)}),
		"o":      cty.ObjectVal(map[string]cty.Value{"x": cty.StringVal("y"), "y": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"z": cty.NumberIntVal(1)})})}),
		"empty":  cty.EmptyObjectVal,
		"blocks": cty.SetVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("1")}), cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("2")})}),
	})
	empties := cty.ObjectVal(map[string]cty.Value{
		"s": cty.NullVal(cty.String), "n": cty.NullVal(cty.Number), "b": cty.False, "d": cty.NullVal(cty.DynamicPseudoType),
		"l": cty.ListValEmpty(cty.String), "set": cty.SetValEmpty(cty.Number), "m": cty.MapValEmpty(cty.Bool),
		"t":      cty.NullVal(cty.Tuple([]cty.Type{cty.String, cty.Number})),
		"o":      cty.NullVal(cty.Object(map[string]cty.Type{"x": cty.String, "y": cty.List(cty.Object(map[string]cty.Type{"z": cty.Number}))})),
		"empty":  cty.NullVal(cty.EmptyObject),
		"blocks": cty.SetValEmpty(cty.Object(map[string]cty.Type{"k": cty.String})),
	})
	cases := []struct {
		name string
		ty   cty.Type
		v    cty.Value
	}{
		{"full", obj, full},
		{"empties", obj, empties},
		{"null object", obj, cty.NullVal(obj)},
		{"dynamic string", cty.DynamicPseudoType, cty.StringVal("v")},
		{"dynamic number", cty.DynamicPseudoType, cty.NumberIntVal(42)},
		{"dynamic bool", cty.DynamicPseudoType, cty.True},
		{"dynamic null", cty.DynamicPseudoType, cty.NullVal(cty.DynamicPseudoType)},
		{"dynamic empty tuple", cty.DynamicPseudoType, cty.EmptyTupleVal},
		{"dynamic empty object", cty.DynamicPseudoType, cty.EmptyObjectVal},
		{"list of dynamic", cty.List(cty.DynamicPseudoType), cty.ListVal([]cty.Value{cty.StringVal("a")})}, // left to ctyjson
	}
	// Every resource type of the built-in provider, as the engine stores it.
	schema, _ := tetherprovider.New().GetSchema()
	resources, err := schema.Resources.All()
	if err != nil {
		panic(err) // the built-in provider's own schema
	}
	for name, rs := range resources {
		ty := rs.Block.ImpliedType()
		cases = append(cases, struct {
			name string
			ty   cty.Type
			v    cty.Value
		}{name + " (null attributes)", ty, nullAttrs(rs.Block)})
	}
	return cases
}

func nullAttrs(b *provider.Block) cty.Value {
	ty := b.ImpliedType()
	vals := map[string]cty.Value{}
	for name, aty := range ty.AttributeTypes() {
		vals[name] = cty.NullVal(aty)
	}
	if len(vals) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(vals)
}

func TestUnmarshalMatchesCtyJSON(t *testing.T) {
	for _, c := range decodeCases() {
		raw, err := ctyjson.Marshal(c.v, c.ty)
		if err != nil {
			t.Fatalf("%s: marshal: %v", c.name, err)
		}
		want, wantErr := ctyjson.Unmarshal(raw, c.ty)
		for name, unmarshal := range map[string]func([]byte, cty.Type) (cty.Value, error){
			"Unmarshal": statejson.Unmarshal, "UnmarshalShared": statejson.UnmarshalShared,
		} {
			got, gotErr := unmarshal(raw, c.ty)
			if (wantErr == nil) != (gotErr == nil) {
				t.Errorf("%s: %s: error %v, ctyjson's %v", c.name, name, gotErr, wantErr)
				continue
			}
			if wantErr == nil && (!got.Type().Equals(want.Type()) || !got.RawEquals(want)) {
				t.Errorf("%s: %s:\n got %#v\nwant %#v", c.name, name, got, want)
			}
		}
		// The point is speed: all but the cases ctyjson is left with must
		// take the fast path.
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := statejson.ValueFromJSON(useNumbers(doc), c.ty); !ok && c.name != "list of dynamic" {
			t.Errorf("%s: not decoded by the fast path", c.name)
		}
	}
}

// useNumbers turns float64s into json.Numbers, as the decoder's UseNumber
// does.
func useNumbers(doc any) any {
	switch d := doc.(type) {
	case float64:
		return json.Number(strconv.FormatFloat(d, 'g', -1, 64))
	case []any:
		for i := range d {
			d[i] = useNumbers(d[i])
		}
	case map[string]any:
		for k := range d {
			d[k] = useNumbers(d[k])
		}
	}
	return doc
}

// TestUnmarshalDefersToCtyJSON: what the fast path does not accept
// exactly as ctyjson would is left to ctyjson, with its result or error.
func TestUnmarshalDefersToCtyJSON(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"s": cty.String, "n": cty.Number, "b": cty.Bool, "d": cty.DynamicPseudoType})
	for _, raw := range []string{
		`{"s": 12, "n": "12.5", "b": "true"}`,       // conversions ctyjson makes
		`{"s": true}`,                               //
		`{"x": 1}`,                                  // unknown attribute
		`{"d": {"value": "a"}}`,                     // dynamic without type
		`{"d": {"value": 1, "type": "string"}}`,     // value of another type
		`{"d": {"value": 1, "type": ["bogus", 1]}}`, // bad type
		`{"d": {"value": {"a": 1}, "type": ["object", {"a": "number"}, ["a"]]}}`, // optional attributes
		`{"s": "a"} trailing`,
		`{"s": "a"`,
		`[]`,
		``,
		`null`,
	} {
		want, wantErr := ctyjson.Unmarshal([]byte(raw), obj)
		got, gotErr := statejson.Unmarshal([]byte(raw), obj)
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: error %v, ctyjson's %v", raw, gotErr, wantErr)
			continue
		}
		if wantErr == nil && !got.RawEquals(want) {
			t.Errorf("%s:\n got %#v\nwant %#v", raw, got, want)
		}
	}
}

// valueType is the built-in tether_value's state type.
func valueType(tb testing.TB) cty.Type {
	schema, _ := tetherprovider.New().GetSchema()
	rs, _, err := schema.Resources.Get("tether_value")
	if err != nil {
		tb.Fatal(err)
	}
	return rs.Block.ImpliedType()
}

func BenchmarkUnmarshal(b *testing.B) {
	ty := valueType(b)
	v := cty.ObjectVal(map[string]cty.Value{
		"input": cty.StringVal("v12345"), "output": cty.StringVal("v12345"),
		"delay_ms": cty.NullVal(cty.Number), "id": cty.StringVal("72e84963c2a144a0"),
	})
	raw, err := ctyjson.Marshal(v, ty)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ctyjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ctyjson.Unmarshal(raw, ty); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshalRecorded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := statejson.Unmarshal(raw, ty); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestScanMatchesCtyJSON: the scanner reads state as written (each case
// of decodeCases) and the same JSON laid out otherwise, and what it reads
// is ctyjson's value; what it gives up on (escapes, duplicate keys) is
// still read as ctyjson reads it.
func TestScanMatchesCtyJSON(t *testing.T) {
	for _, c := range decodeCases() {
		raw, err := ctyjson.Marshal(c.v, c.ty)
		if err != nil {
			t.Fatalf("%s: marshal: %v", c.name, err)
		}
		if _, ok := statejson.ScanValue(raw, c.ty); !ok && c.name != "list of dynamic" {
			t.Errorf("%s: not read by the scanner", c.name)
		}
	}
	obj := cty.Object(map[string]cty.Type{"s": cty.String, "n": cty.Number, "d": cty.DynamicPseudoType, "m": cty.Map(cty.String),
		"l": cty.List(cty.Number), "t": cty.Tuple([]cty.Type{cty.Bool})})
	for _, tc := range []struct {
		raw     string
		scanned bool
	}{
		{` { "s" : "a" , "n" : -1.5e+3 , "d" : { "value" : [1, "x"] , "type" : ["tuple", ["number", "string"]] } } `, true},
		{`{"d": {"type": ["map", "bool"], "value": {"a": true, "b": null}}}`, true},
		{`{"d": {"type": "dynamic", "value": {"type": "number", "value": 0}}}`, true},
		{`{"m": {}, "l": [], "t": [false]}`, true},
		{`{"s": "a", "d": {"value": ["a", "a", "b", "", ""], "type": ["list", "string"]}, "m": {"x": "a", "y": "b"}}`, true},
		{`{"s": "caf\u00e9"}`, false},
		{`{"s": "tab\there"}`, false},
		{`{"s": "é ✓"}`, true},
		{"{\"s\": \"a\xffb\"}", false}, // not UTF-8
		{"{\"s\": \"\xc3\"}", false},   // cut short
		{`{"s": "a", "s": "b"}`, false},
		{`{"n": 01}`, false},
		{`{"n": 1.}`, false},
		{`{"t": [true, false]}`, false},
		{`{"d": {"type": "string", "value": "x", "extra": 1}}`, false},
		{`{"m": {"k": "v", "k": "w"}}`, false},
	} {
		_, scanned := statejson.ScanValue([]byte(tc.raw), obj)
		if scanned != tc.scanned {
			t.Errorf("%s: scanned %v, want %v", tc.raw, scanned, tc.scanned)
		}
		want, wantErr := ctyjson.Unmarshal([]byte(tc.raw), obj)
		got, gotErr := statejson.Unmarshal([]byte(tc.raw), obj)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: error %v, ctyjson's %v", tc.raw, gotErr, wantErr)
			continue
		}
		if wantErr == nil && !got.RawEquals(want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.raw, got, want)
		}
	}
}

// TestUnmarshalSharedHoldsRaw: UnmarshalShared's strings are the bytes
// it was given (an NFC string's, as state writes them), Unmarshal's are
// copies: the caller of Unmarshal may reuse its buffer.
func TestUnmarshalSharedHoldsRaw(t *testing.T) {
	ty := valueType(t)
	raw := []byte(`{"delay_ms":null,"id":"72e84963c2a144a0","input":{"value":"café","type":"string"},"output":{"value":"v1","type":"string"}}`)
	within := func(s string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&raw[0]))
		return p >= start && p < start+uintptr(len(raw))
	}
	shared, err := statejson.UnmarshalShared(raw, ty)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := statejson.Unmarshal(raw, ty)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"id", "input", "output"} {
		if s := shared.GetAttr(name).AsString(); !within(s) {
			t.Errorf("UnmarshalShared's %s (%q) is a copy", name, s)
		}
		if s := copied.GetAttr(name).AsString(); within(s) {
			t.Errorf("Unmarshal's %s (%q) is the given bytes", name, s)
		}
	}
}

// TestUnmarshalSharesTypes: the objects of one resource type, decoded
// into its schema's type, hold one type, not a map of attribute types
// each, an object's equal strings are one value, and they are still
// ctyjson's values.
func TestUnmarshalSharesTypes(t *testing.T) {
	ty := valueType(t)
	var got []cty.Value
	for _, input := range []string{"a", "b"} {
		raw := []byte(`{"delay_ms":null,"id":"` + input + `1","input":{"value":"` + input + `","type":"string"},"output":{"value":"` + input + `","type":"string"}}`)
		want, err := ctyjson.Unmarshal(raw, ty)
		if err != nil {
			t.Fatal(err)
		}
		v, err := statejson.Unmarshal(raw, ty)
		if err != nil || !v.RawEquals(want) || !v.Type().Equals(want.Type()) {
			t.Fatalf("Unmarshal(%s) = %#v, %v; want %#v", raw, v, err, want)
		}
		got = append(got, v)
	}
	words := func(ty cty.Type) [2]uintptr { return *(*[2]uintptr)(unsafe.Pointer(&ty)) }
	if words(got[0].Type()) != words(got[1].Type()) {
		t.Errorf("two objects of one resource type hold two types")
	}
	// The output repeats the input: one string value, made once.
	for _, v := range got {
		if !ctysame.Identical(v.GetAttr("input"), v.GetAttr("output")) {
			t.Errorf("an object's equal strings are two values")
		}
	}
}
