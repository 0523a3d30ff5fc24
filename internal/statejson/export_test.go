package statejson

// ValueFromJSON is valueFromJSON, for the tests that check which values
// it decodes itself and which it leaves to ctyjson.
var ValueFromJSON = valueFromJSON

var ScanValue = scanValue

// AppendValue is appendValue, for the tests that check which values
// Marshal writes itself and which it leaves to ctyjson.
var AppendValue = appendValue
