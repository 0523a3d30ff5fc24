package engine

import (
	"fmt"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
)

// TestChangeObjectKeyReadsOnlyTheID checks that naming the object of a
// change, done for every change of a plan, costs the same for a large
// object as for a small one (it once copied the whole object to unmark
// it), and still finds a sensitive id.
func TestChangeObjectKeyReadsOnlyTheID(t *testing.T) {
	c := &plan.ResourceChange{Provider: `provider["registry.terraform.io/tetherhq/tether"]`, Type: "tether_value"}
	object := func(n int) cty.Value {
		tags := map[string]cty.Value{}
		for i := range n {
			tags[fmt.Sprint("k", i)] = cty.StringVal("v")
		}
		return cty.ObjectVal(map[string]cty.Value{
			"id":   cty.StringVal("id-1").Mark(marks.Sensitive),
			"tags": cty.MapVal(tags).Mark(marks.Sensitive),
		}).Mark(marks.Sensitive)
	}
	small, large := object(1), object(200)
	if k, ok := changeObjectKey(c, large); !ok || k.id != "id-1" || k.typ != "tether_value" || k.source != "registry.terraform.io/tetherhq/tether" {
		t.Fatalf("changeObjectKey = %+v, %v; want tether_value id-1 of registry.terraform.io/tetherhq/tether", k, ok)
	}
	cost := func(v cty.Value) float64 { return testing.AllocsPerRun(10, func() { changeObjectKey(c, v) }) }
	if s, l := cost(small), cost(large); l > s {
		t.Errorf("changeObjectKey allocated %v times for an object of 200 tags, %v for one of 1: it copies the object", l, s)
	}
}

// TestSameObjectsWithoutDeletes checks that a plan without a delete (a
// first apply) pairs no create, and names no create's object to find
// out: the creates of known ids cost nothing.
func TestSameObjectsWithoutDeletes(t *testing.T) {
	p := &Planned{}
	for i := range 20 {
		in := &instance{addr: fmt.Sprint("tether_value.r", i), change: &plan.ResourceChange{
			Provider: `provider["registry.terraform.io/tetherhq/tether"]`, Type: "tether_value", Action: plan.Create,
			After: cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(fmt.Sprint("id-", i))}),
		}}
		p.nodes = append(p.nodes, &node{per: []*nodeInst{{insts: []*instance{in}}}})
	}
	if got := p.sameObjects(); len(got) != 0 {
		t.Fatalf("sameObjects = %v, want none", got)
	}
	if n := testing.AllocsPerRun(10, func() { p.sameObjects() }); n > 0 {
		t.Errorf("sameObjects allocated %v times for a plan without a delete, want none", n)
	}
}
