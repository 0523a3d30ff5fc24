package plugin

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// ctyTypeFromJSON is cty.Type.UnmarshalJSON, with its panic on an object
// type whose optional attributes it does not have turned into the error
// it is: a provider's schema must not crash Tether.
func ctyTypeFromJSON(ty *cty.Type, b []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return ty.UnmarshalJSON(b)
}
