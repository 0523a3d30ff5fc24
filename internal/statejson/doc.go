// Package statejson decodes objects in Terraform's JSON state encoding
// (the value of a resource instance in state v4, and Tether's recorded
// objects) into cty values of a schema's type in one pass: the same values
// and errors as go-cty's ctyjson.Unmarshal, which it falls back to for
// whatever it does not decode itself, at a fraction of the allocations,
// since reading state back is the largest cost of a plan with nothing to
// do.
package statejson
