package engine

import (
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/zclconf/go-cty/cty"
)

// whollyKnown is v.IsWhollyKnown(), marks and all, without go-cty's
// element iterator for an object: the iterator sorts the attribute names
// (allocations for each object) to visit them in an order the answer does
// not depend on.
func whollyKnown(v cty.Value) bool {
	v, _ = v.Unmark()
	if !v.Type().IsObjectType() || !v.IsKnown() || v.IsNull() {
		return v.IsWhollyKnown()
	}
	return !ctysame.AnyAttr(v, func(_ string, av cty.Value) bool { return !whollyKnown(av) })
}
