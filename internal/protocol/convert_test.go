package protocol

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

func TestTypeRoundTrip(t *testing.T) {
	for _, ty := range []cty.Type{
		cty.String, cty.Number, cty.Bool, cty.DynamicPseudoType,
		cty.List(cty.String), cty.Set(cty.Number), cty.Map(cty.Bool),
		cty.Tuple([]cty.Type{cty.String, cty.List(cty.DynamicPseudoType)}),
		cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.Map(cty.Set(cty.Bool))}),
		cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a": cty.String, "b": cty.Number}, []string{"b"}),
		cty.EmptyObject,
	} {
		tt, err := TypeToTF(ty)
		if err != nil {
			t.Errorf("%#v: %s", ty, err)
			continue
		}
		back, err := TypeFromTF(tt)
		if err != nil {
			t.Errorf("%s: %s", tt, err)
			continue
		}
		if !back.Equals(ty) {
			t.Errorf("round trip of %#v gave %#v", ty, back)
		}
	}

	if tt, _ := TypeToTF(cty.Map(cty.String)); !tt.Equal(tftypes.Map{ElementType: tftypes.String}) {
		t.Errorf("map(string) became %s", tt)
	}
	capsule := cty.Capsule("thing", nil)
	if _, err := TypeToTF(cty.List(capsule)); err == nil {
		t.Error("a capsule type converted without error")
	}
}

func TestPathRoundTrip(t *testing.T) {
	p := cty.GetAttrPath("keepers").Index(cty.StringVal("env")).GetAttr("x").Index(cty.NumberIntVal(3))
	tp := PathToTF(p)
	want := tftypes.NewAttributePath().WithAttributeName("keepers").WithElementKeyString("env").WithAttributeName("x").WithElementKeyInt(3)
	if !tp.Equal(want) {
		t.Fatalf("PathToTF = %s, want %s", tp, want)
	}
	if back := PathFromTF(tp); !back.Equals(p) {
		t.Fatalf("PathFromTF = %#v, want %#v", back, p)
	}

	// The protocol cannot name a set element: the path stops at the set.
	setPath := cty.GetAttrPath("rules").Index(cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80)})).GetAttr("port")
	if got := PathToTF(setPath); !got.Equal(tftypes.NewAttributePath().WithAttributeName("rules")) {
		t.Fatalf("path into a set = %s, want rules", got)
	}
}

func TestDiagnosticsRoundTrip(t *testing.T) {
	in := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Invalid value for \"length\"", Detail: "too long", Extra: PathExtra{cty.GetAttrPath("length")}},
		{Severity: hcl.DiagWarning, Summary: "Careful", Detail: "no path"},
	}
	out := DiagnosticsToTF(in)
	if len(out) != 2 {
		t.Fatalf("got %d diagnostics", len(out))
	}
	if out[0].Severity != tfprotov6.DiagnosticSeverityError || out[0].Summary != in[0].Summary || out[0].Detail != "too long" {
		t.Errorf("first = %+v", out[0])
	}
	if !out[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("length")) {
		t.Errorf("first attribute = %s", out[0].Attribute)
	}
	if out[1].Severity != tfprotov6.DiagnosticSeverityWarning || out[1].Attribute != nil {
		t.Errorf("second = %+v", out[1])
	}

	back := DiagnosticsFromTF(out)
	if len(back) != 2 || back[0].Severity != hcl.DiagError || back[1].Severity != hcl.DiagWarning {
		t.Fatalf("back = %#v", back)
	}
	pe, ok := hcl.DiagnosticExtra[AttributePather](back[0])
	if !ok || !pe.AttributePath().Equals(cty.GetAttrPath("length")) {
		t.Errorf("attribute path lost in round trip")
	}
	if DiagnosticsFromTF([]*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityInvalid, Summary: "?"}})[0].Severity != hcl.DiagError {
		t.Error("a diagnostic of invalid severity is not treated as an error")
	}
}

func TestValueCodecs(t *testing.T) {
	objTy := cty.Object(map[string]cty.Type{"s": cty.String, "d": cty.DynamicPseudoType})
	v := cty.ObjectVal(map[string]cty.Value{
		"s": cty.UnknownVal(cty.String),
		"d": cty.ListVal([]cty.Value{cty.NumberIntVal(1)}),
	})
	dv, err := EncodeValue(v, objTy)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeValue(dv, objTy)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RawEquals(v) {
		t.Fatalf("msgpack round trip: got %#v, want %#v", got, v)
	}

	got, err = DecodeValue(&tfprotov6.DynamicValue{JSON: []byte(`{"s":"a","d":{"value":true,"type":"bool"}}`)}, objTy)
	if err != nil {
		t.Fatal(err)
	}
	if !got.GetAttr("d").RawEquals(cty.True) {
		t.Fatalf("JSON decode: %#v", got)
	}

	if got, _ := DecodeValue(nil, objTy); !got.IsNull() {
		t.Fatalf("absent value decoded to %#v, want null", got)
	}
	if _, err := EncodeValue(cty.StringVal("x").Mark("sensitive"), cty.String); err == nil {
		t.Fatal("a marked value encoded silently")
	}
}
