package tether

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

type randomResource struct{}

func (randomResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	lv := attr(config, "length")
	if n, ok, isInt := knownInt(lv); ok && (!isInt || n < 1 || n > maxRandomLength) {
		diags = append(diags, attrError("length", fmt.Sprintf(
			"The length must be a whole number from 1 to %d; got %s.", maxRandomLength, lv.AsBigFloat().Text('f', -1))))
	}
	if c, ok := knownString(attr(config, "characters")); ok && c == "" {
		diags = append(diags, attrError("characters", "At least one character is needed to draw from."))
	}
	return diags
}

func randomObject(length, chars, keepers, result, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"length":     length,
		"characters": chars,
		"keepers":    keepers,
		"result":     result,
		"id":         id,
	})
}

func (r randomResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg := req.Config
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	length := attr(cfg, "length")
	chars := attr(cfg, "characters")
	if chars.IsNull() {
		chars = cty.StringVal(defaultCharacters)
	}
	keepers := attr(cfg, "keepers")
	result := cty.UnknownVal(cty.String)
	id := cty.UnknownVal(cty.String)

	var replace []cty.Path
	if prior := req.PriorState; !prior.IsNull() {
		if changed(attr(prior, "length"), length) {
			replace = append(replace, cty.GetAttrPath("length"))
		}
		if changed(attr(prior, "characters"), chars) {
			replace = append(replace, cty.GetAttrPath("characters"))
		}
		if keepersChanged(attr(prior, "keepers"), keepers) {
			replace = append(replace, cty.GetAttrPath("keepers"))
		}
		if len(replace) == 0 {
			result = attr(prior, "result")
			id = attr(prior, "id")
		}
	}
	return provider.PlanResponse{
		PlannedState:    randomObject(length, chars, keepers, result, id),
		RequiresReplace: replace,
	}
}

// keepersChanged treats an absent map and an empty one alike: neither keeps
// anything, so going from one to the other is no reason for a new string.
func keepersChanged(prior, planned cty.Value) bool {
	if emptyMap(prior) && emptyMap(planned) {
		return false
	}
	return changed(prior, planned)
}

func emptyMap(v cty.Value) bool {
	return v.IsNull() || v.IsKnown() && v.LengthInt() == 0
}

func (r randomResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned := req.PlannedState
	if planned.IsNull() {
		return provider.ApplyResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	failed := req.PriorState
	if failed.IsNull() {
		failed = cty.NullVal(planned.Type())
	}
	result := attr(planned, "result")
	if !result.IsKnown() || result.IsNull() {
		n, ok, isInt := knownInt(attr(planned, "length"))
		chars, ok2 := knownString(attr(planned, "characters"))
		if !ok || !isInt || !ok2 || n < 1 || n > maxRandomLength || chars == "" {
			return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Incomplete planned tether_random",
				Detail:   "length and characters must be known and valid when the string is generated.",
			}}}
		}
		result = cty.StringVal(randomString(int(n), chars))
	}
	id := attr(planned, "id")
	if !id.IsKnown() || id.IsNull() {
		id = cty.StringVal(newID())
	}
	return provider.ApplyResponse{NewState: randomObject(
		attr(planned, "length"), attr(planned, "characters"), attr(planned, "keepers"), result, id,
	)}
}

// randomString draws n characters uniformly from chars. Each draw takes 32
// random bits and rejects the top values that would favour the first
// characters of the set.
func randomString(n int, chars string) string {
	alphabet := []rune(chars)
	m := uint64(len(alphabet))
	bound := (1 << 32) / m * m
	var sb strings.Builder
	sb.Grow(n)
	buf := make([]byte, 4*n)
	for count := 0; count < n; {
		rand.Read(buf)
		for i := 0; i+4 <= len(buf) && count < n; i += 4 {
			x := uint64(binary.LittleEndian.Uint32(buf[i:]))
			if x >= bound {
				continue
			}
			sb.WriteRune(alphabet[x%m])
			count++
		}
	}
	return sb.String()
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (randomResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (randomResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importUnsupported("tether_random")
}
