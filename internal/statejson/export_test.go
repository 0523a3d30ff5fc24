package statejson

import "github.com/zclconf/go-cty/cty"

// ValueFromJSON is valueFromJSON, for the tests that check which values
// it decodes itself and which it leaves to ctyjson.
var ValueFromJSON = valueFromJSON

func ScanValue(raw []byte, ty cty.Type) (cty.Value, bool) { return scanValue(raw, ty, false) }

// AppendValue is appendValue, for the tests that check which values
// Marshal writes itself and which it leaves to ctyjson.
var AppendValue = appendValue
