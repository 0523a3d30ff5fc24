package engine

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

func TestWriteOnlyAttributes(t *testing.T) {
	block := &provider.Block{Attributes: map[string]*provider.Attribute{
		"name":        {Type: cty.String, Required: true},
		"password_wo": {Type: cty.String, Optional: true, WriteOnly: true},
	}}
	obj := func(pw cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("db"), "password_wo": pw})
	}
	secret, null := cty.StringVal("hunter2"), cty.NullVal(cty.String)
	if got := provider.PlanProblems(block, cty.NullVal(block.ImpliedType()), obj(secret), obj(null)); len(got) != 0 {
		t.Errorf("a plan with null for the write-only attribute: %q", got)
	}
	if got := provider.PlanProblems(block, cty.NullVal(block.ImpliedType()), obj(secret), obj(secret)); len(got) != 1 {
		t.Errorf("a plan that returns the write-only value must be refused; got %q", got)
	}
	if got := provider.ResultProblems(block, obj(null), obj(secret)); len(got) != 1 {
		t.Errorf("a result that returns the write-only value must be refused; got %q", got)
	}
	if got := withoutWriteOnly(block, obj(secret)); !got.RawEquals(obj(null)) {
		t.Errorf("withoutWriteOnly kept %#v", got)
	}
}

func TestMarkDerived(t *testing.T) {
	secret := "hunter22"
	sum := sha256.Sum256([]byte(secret))
	for _, tc := range []struct {
		name string
		v    cty.Value
		want bool
	}{
		{"the secret", cty.StringVal(secret), true},
		{"containing it", cty.StringVal("user:" + secret + "@host"), true},
		{"its sha256", cty.StringVal(hex.EncodeToString(sum[:])), true},
		{"its sha256 in base64", cty.StringVal(base64.StdEncoding.EncodeToString(sum[:])), true},
		{"unrelated", cty.StringVal("out/key.txt"), false},
		{"a number", cty.NumberIntVal(8), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := markDerived(cty.ObjectVal(map[string]cty.Value{"a": tc.v}), []string{secret})
			if marked := got.GetAttr("a").HasMark(marks.Sensitive); marked != tc.want {
				t.Errorf("marked %v, want %v", marked, tc.want)
			}
		})
	}
}
