package plugin

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// quickType decodes what it accepts exactly as cty does, and leaves to
// cty everything that is not plainly valid.
func TestQuickTypeIsCtys(t *testing.T) {
	for _, tc := range []struct {
		json  string
		quick bool // decoded by quickType; else cty decides
	}{
		{`"string"`, true},
		{`"number"`, true},
		{`"bool"`, true},
		{`"dynamic"`, true},
		{`["list","string"]`, true},
		{`["set",["map","number"]]`, true},
		{`["map",["list",["object",{"a":"string"}]]]`, true},
		{`["object",{}]`, true},
		{`["object",{"a":"string","b":["set","bool"]}]`, true},
		{`["object",{"a":"string","b":"number"},["b"]]`, true},
		{`["tuple",["string",["list","number"]]]`, true},
		{`["tuple",[]]`, true},
		// Not plainly valid: cty's own verdict stands.
		{`"int"`, false},
		{`["list"]`, false},
		{`["list","string","string"]`, false},
		{`["object",{"a":"string"},["b"]]`, false},
		{`["object",{"a":"string"},[1]]`, false},
		{`["object",{"a":"string"},["a"],"x"]`, false},
		{`["object",["a"]]`, false},
		{`["tuple","string"]`, false},
		{`["what","string"]`, false},
		{`"string" "number"`, false},
		{`{"list":"string"}`, false},
		{`["list","string"`, false},
		{``, false},
	} {
		t.Run(tc.json, func(t *testing.T) {
			got, ok := quickType([]byte(tc.json))
			if ok != tc.quick {
				t.Fatalf("quickType decoded it: %v, want %v", ok, tc.quick)
			}
			if !ok {
				// cty's verdict, through typeFromJSON: an error, never
				// a panic (cty's ObjectWithOptionalAttrs panics on an
				// optional attribute the object lacks).
				if _, err := typeFromJSON([]byte(tc.json)); err == nil {
					t.Errorf("typeFromJSON accepted it")
				}
				return
			}
			var want cty.Type
			if err := want.UnmarshalJSON([]byte(tc.json)); err != nil || !got.Equals(want) {
				t.Errorf("quickType gives %#v, cty %#v (%v)", got, want, err)
			}
		})
	}
}
