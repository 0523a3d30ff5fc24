package cli

import (
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/provider"
)

// The engine asks the pool for a provider's schema once an instance, by
// its source address: once the provider is described, an answer costs no
// parse of the address and no allocation (at 100,000 resources the parse
// alone was 0.07 s of a plan).
func TestPoolSchemaOfADescribedProviderAllocatesNothing(t *testing.T) {
	src := tfaddr.MustParseProviderSource("registry.terraform.io/tetherhq/tether")
	want := &provider.Schema{}
	pp := &providerPool{providers: map[tfaddr.Provider]*pooled{}}
	e := pp.entry(src)
	e.schemaOnce.Do(func() { e.schema = want })
	schema, addr := pp.factory().Schema, src.String()
	got, err := schema(addr)
	if err != nil || got != want {
		t.Fatalf("schema = %p, %v; want %p", got, err, want)
	}
	if n := testing.AllocsPerRun(100, func() { schema(addr) }); n != 0 {
		t.Errorf("%.0f allocations a schema", n)
	}
}
