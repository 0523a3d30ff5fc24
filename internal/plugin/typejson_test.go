package plugin

import "testing"

// A type cty refuses is an error naming it, never a panic: cty's
// ObjectWithOptionalAttrs panics on an optional attribute the object
// lacks.
func TestTypeFromJSONRefuses(t *testing.T) {
	for _, bad := range []string{
		`["object",{"a":"string"},["b"]]`,
		`["list","string","string"]`,
		`"int"`,
		``,
	} {
		if _, err := typeFromJSON([]byte(bad)); err == nil {
			t.Errorf("typeFromJSON(%s) accepted it", bad)
		}
	}
}
