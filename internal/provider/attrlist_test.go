package provider

import (
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestAttributeList checks that a block's attribute list, which
// ProposedNew goes through instead of the map, has every attribute once,
// in name order, and is made once.
func TestAttributeList(t *testing.T) {
	b := &Block{Attributes: map[string]*Attribute{
		"zone": {Type: cty.String}, "id": {Type: cty.String, Computed: true}, "name": {Type: cty.String},
	}}
	l := b.attributeList()
	var names []string
	for _, na := range l {
		if b.Attributes[na.name] != na.a {
			t.Errorf("%s: not its attribute", na.name)
		}
		names = append(names, na.name)
	}
	if want := []string{"id", "name", "zone"}; !slices.Equal(names, want) {
		t.Errorf("attributes %q, want %q", names, want)
	}
	if again := b.attributeList(); &again[0] != &l[0] {
		t.Error("the list was made again")
	}
}
