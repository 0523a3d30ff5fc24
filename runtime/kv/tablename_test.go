package kv

import (
	"regexp"
	"strings"
	"testing"
)

// tableName is DynamoDB's rule, as the regular expression it replaced
// says it.
func TestTableNameIsDynamoDBsRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)
	for _, name := range []string{
		"", "ab", "abc", "tether-store", "My_Table.v2", strings.Repeat("a", 255), strings.Repeat("a", 256),
		"a b", "abc\n", "täble", "abc/d", "abc:", "ABC", "0-9", "a+b", "ab\x00",
	} {
		if got, want := tableName(name), rule.MatchString(name); got != want {
			t.Errorf("tableName(%q) = %v, the rule says %v", name, got, want)
		}
	}
}
