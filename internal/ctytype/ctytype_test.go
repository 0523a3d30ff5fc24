package ctytype

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// FromJSON decodes what it accepts exactly as cty does, and leaves to
// cty everything that is not plainly valid.
func TestFromJSONIsCtys(t *testing.T) {
	for _, tc := range []struct {
		json  string
		quick bool // decoded by FromJSON; else cty decides
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
			got, ok := FromJSON([]byte(tc.json))
			if ok != tc.quick {
				t.Fatalf("FromJSON decoded it: %v, want %v", ok, tc.quick)
			}
			if !ok {
				return
			}
			var want cty.Type
			if err := want.UnmarshalJSON([]byte(tc.json)); err != nil || !got.Equals(want) {
				t.Errorf("FromJSON gives %#v, cty %#v (%v)", got, want, err)
			}
		})
	}
}
