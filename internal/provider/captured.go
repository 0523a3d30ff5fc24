package provider

import "strings"

// CapturedEnvName is the name of the environment variable that carries a
// captured property (see ResourceSchema.Captured) of one resource to the
// code that reads it at run time: upper(resourceType + "_" + resourceID +
// "_" + property), with every character outside [A-Za-z0-9_] replaced by
// "_". The deployment that sets the variable and the program that reads it
// both derive the name from the same three parts, so neither has to tell
// the other; that is why the rule must never change.
func CapturedEnvName(resourceType, resourceID, property string) string {
	s := strings.ToUpper(resourceType + "_" + resourceID + "_" + property)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			// One "_" per character, not per byte, so that a name with
			// non-ASCII letters maps the way other implementations of
			// the rule (which work on characters) map it.
			b.WriteByte('_')
		}
	}
	return b.String()
}
