package refs

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestEncodeDecode(t *testing.T) {
	env := &Ref{Kind: "env", Args: []cty.Value{cty.StringVal("NAME")}, Type: cty.String}
	tests := []struct {
		name string
		ref  *Ref
	}{
		{"env", env},
		{"composed", &Ref{Kind: "env", Args: []cty.Value{Val(&Ref{Kind: "file", Args: []cty.Value{cty.StringVal("name.txt")}, Type: cty.String})}, Type: cty.String}},
		{"field of an object", Field(&Ref{Kind: "custom", Args: []cty.Value{cty.NumberIntVal(3), cty.ListVal([]cty.Value{cty.True})}, Type: cty.Object(map[string]cty.Type{"a": cty.String})}, "a", cty.String)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok := Encode(tt.ref)
			if !ok {
				t.Fatal("not encoded")
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Description() != tt.ref.Description() || !got.Type.Equals(tt.ref.Type) {
				t.Errorf("decoded %s (%#v), want %s", got.Description(), got.Type, tt.ref.Description())
			}
		})
	}
}

func TestEncodeRefusesWhatItCannotKeep(t *testing.T) {
	for name, arg := range map[string]cty.Value{
		"marked":  cty.StringVal("secret-path").Mark("sensitive"),
		"unknown": cty.UnknownVal(cty.String),
	} {
		t.Run(name, func(t *testing.T) {
			if _, ok := Encode(&Ref{Kind: "file", Args: []cty.Value{arg}, Type: cty.String}); ok {
				t.Error("encoded")
			}
		})
	}
}
