package install

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// constraintSet is the version constraints put on one provider, from every
// module that states some: the terms all hold, as in Terraform.
type constraintSet struct {
	terms []constraintTerm
}

// constraintTerm is one comparison such as ">= 1.2" or "~> 0.14".
type constraintTerm struct {
	op       string // "=", "!=", ">", ">=", "<", "<=", "~>"
	segments int    // how many of major.minor.patch were written
	v        *version.Version
	check    version.Constraints
}

var termPattern = regexp.MustCompile(`^\s*(=|!=|>=|<=|>|<|~>)?\s*v?([0-9]+(?:\.[0-9]+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\s*$`)

// parseConstraints reads the constraint strings of a requirement, each a
// comma-separated list of terms in Terraform's Ruby-like syntax. An empty
// list allows every release; a string that is not valid syntax is an error
// naming the provider and the string.
func parseConstraints(provider tfaddr.Provider, raw []string) (constraintSet, error) {
	var set constraintSet
	for _, s := range raw {
		if strings.TrimSpace(s) == "" {
			continue
		}
		for _, part := range strings.Split(s, ",") {
			m := termPattern.FindStringSubmatch(part)
			if m == nil {
				return set, fmt.Errorf("invalid version constraint %q for provider %s: %q is not a version constraint such as \">= 1.2.0\" or \"~> 1.2\"", s, provider.ForDisplay(), strings.TrimSpace(part))
			}
			op := m[1]
			if op == "" {
				op = "="
			}
			v, err := version.NewVersion(m[2])
			if err != nil {
				return set, fmt.Errorf("invalid version constraint %q for provider %s: %w", s, provider.ForDisplay(), err)
			}
			check, err := version.NewConstraint(op + " " + m[2])
			if err != nil {
				return set, fmt.Errorf("invalid version constraint %q for provider %s: %w", s, provider.ForDisplay(), err)
			}
			core := strings.SplitN(strings.SplitN(m[2], "-", 2)[0], "+", 2)[0]
			set.terms = append(set.terms, constraintTerm{op: op, segments: strings.Count(core, ".") + 1, v: v, check: check})
		}
	}
	return set, nil
}

// ConstraintsString is the version constraints put on a provider, given
// as written, in the normalized form Terraform writes to the lock file
// and to a JSON plan's provider_config: ">= 1.4" is ">= 1.4.0".
func ConstraintsString(provider tfaddr.Provider, raw []string) (string, error) {
	set, err := parseConstraints(provider, raw)
	if err != nil {
		return "", err
	}
	return set.String(), nil
}

// allows reports whether v meets every term. A prerelease meets the set
// only when a term names it exactly ("= 1.0.0-beta1" or "1.0.0-beta1"), so
// that ">= 1.0" never selects a beta, as in Terraform.
func (c constraintSet) allows(v *version.Version) bool {
	named := false
	for _, t := range c.terms {
		if !t.check.Check(v) {
			return false
		}
		if t.op == "=" && t.v.Equal(v) && t.v.Prerelease() == v.Prerelease() {
			named = true
		}
	}
	return v.Prerelease() == "" || named
}

// newest returns the newest of versions that the set allows, or nil.
func (c constraintSet) newest(versions []*version.Version) *version.Version {
	var best *version.Version
	for _, v := range versions {
		if c.allows(v) && (best == nil || v.GreaterThan(best)) {
			best = v
		}
	}
	return best
}

// String is the set in the normalized form Terraform writes to the lock
// file: terms deduplicated, versions written with three parts (two for a
// "~>" that was written with fewer than three), sorted by version and then
// by operator, joined with ", ". An empty set is "".
func (c constraintSet) String() string {
	type key struct{ op, ver string }
	seen := map[key]bool{}
	type item struct {
		key
		v *version.Version
	}
	var items []item
	for _, t := range c.terms {
		seg := t.v.Segments()
		op := t.op
		ver := fmt.Sprintf("%d.%d.%d", seg[0], seg[1], seg[2])
		if op == "~>" && t.segments < 3 {
			op = "~>2"
			ver = fmt.Sprintf("%d.%d", seg[0], seg[1])
		}
		if p := t.v.Prerelease(); p != "" {
			ver += "-" + p
		}
		if m := t.v.Metadata(); m != "" {
			ver += "+" + m
		}
		k := key{op, ver}
		if seen[k] {
			continue
		}
		seen[k] = true
		items = append(items, item{k, t.v})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if c := items[i].v.Compare(items[j].v); c != 0 {
			return c < 0
		}
		return opOrder[items[i].op] < opOrder[items[j].op]
	})
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		switch it.op {
		case "=":
		case "~>2":
			b.WriteString("~> ")
		default:
			b.WriteString(it.op + " ")
		}
		b.WriteString(it.ver)
	}
	return b.String()
}

// opOrder puts lower bounds before upper bounds for terms on one version.
var opOrder = map[string]int{">": 1, ">=": 2, "=": 3, "~>": 4, "~>2": 5, "<=": 6, "<": 7, "!=": 8}
