package provider

import (
	"fmt"
	"sync"
)

// Factory reaches the providers of a run by their fully qualified source
// addresses (`registry.terraform.io/hashicorp/time`).
//
// Schema returns a provider's schema; the same pointer every time.
// Start returns a new, unconfigured instance: the engine starts one per
// provider configuration, since a configured provider serves only the
// configuration it was given. Whoever made the Factory closes what Start
// returned once the run is over; the engine never closes an instance.
// Both are safe for concurrent use.
type Factory struct {
	Schema func(source string) (*Schema, error)
	Start  func(source string) (Provider, error)
}

// Only is a Factory of a single in-process provider, for tests and tools
// that run nothing but it: each Start calls start.
func Only(source string, start func() Provider) Factory {
	schema := sync.OnceValues(func() (*Schema, error) {
		p := start()
		defer p.Close()
		s, diags := p.GetSchema()
		if diags.HasErrors() {
			return nil, diags
		}
		return s, nil
	})
	check := func(s string) error {
		if s != source {
			return fmt.Errorf("provider %s is not available; only %s is", s, source)
		}
		return nil
	}
	return Factory{
		Schema: func(s string) (*Schema, error) {
			if err := check(s); err != nil {
				return nil, err
			}
			return schema()
		},
		Start: func(s string) (Provider, error) {
			if err := check(s); err != nil {
				return nil, err
			}
			return start(), nil
		},
	}
}
