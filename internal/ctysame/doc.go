// Package ctysame tells, cheaply, that two cty values are the very same
// value: made once and passed on (the prior object a provider gives back
// when nothing changed, an attribute copied from the configuration into a
// plan). go-cty's RawEquals walks two objects attribute by attribute and
// compares their types map by map even then; most comparisons of a large
// no-op plan are of that kind.
package ctysame
