package jsonplan

import (
	"encoding/json"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
)

// TestSensitiveShape checks after_sensitive against Terraform's
// SensitiveAsBool: an unknown list, set or map is an empty collection
// there (nothing is known of its elements), an unknown string false.
func TestSensitiveShape(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"tags_all": cty.UnknownVal(cty.Map(cty.String)),
		"ttl":      cty.UnknownVal(cty.List(cty.Object(map[string]cty.Type{"enabled": cty.Bool}))),
		"ids":      cty.UnknownVal(cty.Set(cty.String)),
		"arn":      cty.UnknownVal(cty.String),
		"secret":   cty.StringVal("s").Mark(marks.Sensitive),
		"none":     cty.NullVal(cty.List(cty.String)),
	})
	got, _ := json.Marshal(sensitiveShape(v))
	if want := `{"ids":[],"secret":true,"tags_all":{},"ttl":[]}`; string(got) != want {
		t.Errorf("after_sensitive %s, want %s", got, want)
	}
}
