// Package ctytype reads cty types in cty's own JSON form (see
// cty.Type.UnmarshalJSON: "string", ["list","number"], ["object",{...}],
// ...), fast, for what is plainly valid: cty's decoder starts a new
// json.Decoder at every level of a type, which for a large provider's
// schema is most of reading it. Whatever this package declines, callers
// hand to cty, which decodes it or refuses it in its own words; the two
// agree on every type both accept.
package ctytype
