package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// SameText reports a difference between what terraform and tether
// printed, with both texts.
func SameText(t *testing.T, label, tf, tt string) {
	t.Helper()
	if tf != tt {
		t.Errorf("%s differs\n--- terraform:\n%s\n--- tether:\n%s", label, tf, tt)
	}
}

// PlannedChanges is a human-readable plan's resource changes: from the
// line after "... will perform the following actions:" to the summary
// ("Plan: ..."), ids left out.
func PlannedChanges(text string) string {
	_, after, ok := strings.Cut(text, " will perform the following actions:\n")
	if !ok {
		return "no resource changes in:\n" + text
	}
	if i := strings.Index(after, "\nPlan: "); i >= 0 {
		end := strings.IndexByte(after[i+1:], '\n')
		if end >= 0 {
			after = after[:i+1+end+1]
		}
	}
	return MaskIDs(after)
}

// idLine matches an id attribute's value in a rendered object.
var idLine = regexp.MustCompile(`(?m)^(\s*[-+~]?\s*id\s+=\s+)"[^"]*"`)

// MaskIDs leaves out each id attribute's value, which is random on each
// side, and spaces at the ends of lines.
func MaskIDs(text string) string {
	text = idLine.ReplaceAllString(text, `${1}"…"`)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
