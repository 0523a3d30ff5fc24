package addr

import (
	"fmt"
	"strings"

	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// ProviderConfig is the address of one provider configuration, as
// Terraform writes it in state and plans:
// `provider["registry.terraform.io/hashicorp/aws"]`, with an alias
// `provider["registry.terraform.io/hashicorp/aws"].west`, declared in a
// module `module.net.provider["registry.terraform.io/hashicorp/aws"]`.
type ProviderConfig struct {
	// Module is the static module path, "" for the root module.
	Module string
	// Source is the provider's fully qualified source address.
	Source tfaddr.Provider
	Alias  string
	// Key is the instance key of a configuration repeated with for_each,
	// in address form (`["us-east-1"]`), which Terraform has no syntax
	// for; "" otherwise.
	Key string
}

func (p ProviderConfig) String() string {
	s := fmt.Sprintf("provider[%q]", p.Source.String())
	if p.Alias != "" {
		s += "." + p.Alias
	}
	return Join(p.Module, s) + p.Key
}

// ParseProviderConfig reads a provider configuration address in the form
// String writes. A bare local name, which Tether recorded in state before
// it ran other providers than its own, is read as the built-in provider's
// default configuration when it is "tether".
func ParseProviderConfig(s string) (ProviderConfig, error) {
	if s == "tether" {
		return ProviderConfig{Source: tfaddr.MustParseProviderSource("tetherhq/tether")}, nil
	}
	var p ProviderConfig
	i := strings.Index(s, "provider[")
	if i < 0 {
		return p, fmt.Errorf("%q is not a provider configuration address", s)
	}
	if i > 0 {
		if !strings.HasSuffix(s[:i], ".") {
			return p, fmt.Errorf("%q is not a provider configuration address", s)
		}
		p.Module = s[:i-1]
	}
	rest := s[i+len("provider["):]
	end := strings.Index(rest, "]")
	if end < 0 || len(rest) < 2 || rest[0] != '"' || rest[end-1] != '"' {
		return p, fmt.Errorf("%q is not a provider configuration address", s)
	}
	src, err := tfaddr.ParseProviderSource(rest[1 : end-1])
	if err != nil {
		return p, fmt.Errorf("%q names an invalid provider source: %w", s, err)
	}
	p.Source = src
	if tail := rest[end+1:]; tail != "" {
		if !strings.HasPrefix(tail, ".") || len(tail) < 2 {
			return p, fmt.Errorf("%q is not a provider configuration address", s)
		}
		p.Alias = tail[1:]
		if i := strings.IndexByte(p.Alias, '['); i >= 0 {
			p.Alias, p.Key = p.Alias[:i], p.Alias[i:]
			if p.Alias == "" || !strings.HasSuffix(p.Key, "]") {
				return p, fmt.Errorf("%q is not a provider configuration address", s)
			}
		}
	}
	return p, nil
}
