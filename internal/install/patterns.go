package install

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
)

// pattern is a parsed include or exclude pattern: a provider address in
// which any part may be "*". A hostname may be "*" only when namespace and
// type are too, and a namespace only when the type is.
type pattern struct{ host, namespace, typ string }

func parsePattern(s string) (pattern, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return pattern{}, fmt.Errorf("%q must have two or three slash-separated parts, such as \"hashicorp/*\" or \"example.com/*/*\"", s)
	}
	p := pattern{host: tfaddr.DefaultProviderRegistryHost.String()}
	if len(parts) == 3 {
		p.host = parts[0]
		if p.host != "*" {
			h, err := svchost.ForComparison(p.host)
			if err != nil {
				return pattern{}, fmt.Errorf("%q has an invalid hostname: %s", s, err)
			}
			p.host = h.String()
		}
		parts = parts[1:]
	}
	p.namespace, p.typ = strings.ToLower(parts[0]), strings.ToLower(parts[1])
	if p.host == "*" && (p.namespace != "*" || p.typ != "*") {
		return pattern{}, fmt.Errorf("%q may have a wildcard hostname only when namespace and type are wildcards too", s)
	}
	if p.namespace == "*" && p.typ != "*" {
		return pattern{}, fmt.Errorf("%q may have a wildcard namespace only when the type is a wildcard too", s)
	}
	if p.namespace == "" || p.typ == "" {
		return pattern{}, fmt.Errorf("%q has an empty part", s)
	}
	return p, nil
}

func (p pattern) matches(addr tfaddr.Provider) bool {
	return (p.host == "*" || p.host == addr.Hostname.String()) &&
		(p.namespace == "*" || p.namespace == addr.Namespace) &&
		(p.typ == "*" || p.typ == addr.Type)
}

// matchesAny reports whether any of the patterns matches addr. Patterns that
// do not parse match nothing (LoadCLIConfig rejects them).
func matchesAny(patterns []string, addr tfaddr.Provider) bool {
	for _, s := range patterns {
		if p, err := parsePattern(s); err == nil && p.matches(addr) {
			return true
		}
	}
	return false
}

// serves reports whether the method is to be asked about addr.
func (m Method) serves(addr tfaddr.Provider) bool {
	if len(m.Include) > 0 && !matchesAny(m.Include, addr) {
		return false
	}
	return !matchesAny(m.Exclude, addr)
}

func checkPatterns(list []string, a *hcl.Attribute) error {
	for _, s := range list {
		if _, err := parsePattern(s); err != nil {
			return diagsError(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider pattern",
				Detail:   fmt.Sprintf("The pattern %s.", err),
				Subject:  a.Expr.Range().Ptr(),
			}})
		}
	}
	return nil
}
