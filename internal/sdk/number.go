package sdk

// Optional scalars and exact numbers: the values generated bindings hold.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/zclconf/go-cty/cty"
)

// String returns a pointer to s, for an optional string field of generated
// bindings: Dir: tether.String("") sets dir to the empty string, while a
// nil field leaves it unset. s may hold tokens (an Output's String(), or
// fmt.Sprintf with Outputs), as any string argument may.
func String(s string) *string { return &s }

// Bool returns a pointer to b, for an optional bool field of generated
// bindings: HTTP: tether.Bool(false) sets http to false, while a nil
// field leaves it unset and the provider's default applies.
func Bool(b bool) *bool { return &b }

// Number is a Terraform number, exact: a whole number of any size or a
// fraction, as Terraform's language and providers hold it (cty's
// arbitrary-precision numbers). Generated bindings use it for every number
// field and getter, so that an id such as 9007199254740993, beyond what a
// float64 holds, keeps every digit on its way to the provider and back.
//
// The zero Number is no number: an optional field left at it is not set,
// and a required one is an error at the program's line, as a nil field
// would be. Make one with Int, Uint, Float, BigNumber or ParseNumber;
// tether.Int(0) is a set zero. Numbers compare with ==: two Numbers of the
// same value are equal.
type Number struct {
	// text is the number in decimal, as big.Float's Text('f', -1) writes
	// it, so that equal numbers have equal text; "" is no number. A
	// number made by Float from a NaN or an infinity keeps that text, and
	// is an error where it is given.
	text string
}

// NumberInput is what a number argument of generated bindings takes: a
// Number, or an Output[Number] (a getter's, or computed with Apply), so
// that one resource's number goes straight into another's, exact at any
// size: builtin.RandomArgs{Length: other.Length()}. A nil NumberInput, or
// one holding the zero Number, is unset. Only Number and Output[Number]
// implement it.
type NumberInput interface {
	value() (Number, error)
}

// value is n itself: what makes a Number a NumberInput, as an
// Output[Number]'s value method makes it one.
func (n Number) value() (Number, error) { return n, nil }

// Int returns the number i.
func Int(i int64) Number { return Number{strconv.FormatInt(i, 10)} }

// Uint returns the number u.
func Uint(u uint64) Number { return Number{strconv.FormatUint(u, 10)} }

// Float returns the number f: the shortest decimal that is f, so
// Float(0.1) is 0.1, as in Terraform's language. A NaN or an infinity has
// no Terraform equivalent: it is an error where the Number is given.
func Float(f float64) Number {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Number{strconv.FormatFloat(f, 'g', -1, 64)}
	}
	return Number{canonical(strconv.FormatFloat(f, 'g', -1, 64))}
}

// BigNumber returns the number f holds; a nil f is no number. An
// infinity is an error where the Number is given.
func BigNumber(f *big.Float) Number {
	if f == nil {
		return Number{}
	}
	if f.IsInf() {
		return Number{f.String()}
	}
	return Number{f.Text('f', -1)}
}

// ParseNumber returns the number written in s, in decimal, with an
// optional fraction and exponent (42, -1.5, 6.02e23), as Terraform's
// language writes numbers.
func ParseNumber(s string) (Number, error) {
	v, err := cty.ParseNumberVal(s)
	if err != nil {
		return Number{}, fmt.Errorf("%q is not a number: %w", s, err)
	}
	return numberFromCty(v), nil
}

// canonical is the text of a decimal number as Number keeps it.
func canonical(s string) string {
	f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	if err != nil {
		return s
	}
	return f.Text('f', -1)
}

// numberFromCty is a known, non-null cty number as a Number.
func numberFromCty(v cty.Value) Number { return Number{v.AsBigFloat().Text('f', -1)} }

// ctyNumber is n as a cty value: null for no number.
func (n Number) ctyNumber() (cty.Value, error) {
	if n.text == "" {
		return cty.NullVal(cty.Number), nil
	}
	v, err := cty.ParseNumberVal(n.text)
	if err != nil {
		return cty.NilVal, fmt.Errorf("%s; Terraform numbers cannot be NaN or infinite", n.text)
	}
	return v, nil
}

// IsSet reports whether n is a number rather than the zero Number.
func (n Number) IsSet() bool { return n.text != "" }

// String is the number in decimal, every digit of it ("0.1",
// "9007199254740993"), or "" for no number.
func (n Number) String() string { return n.text }

// Int64 is the number as an int64, when it is a whole number that fits
// one; otherwise it is an error.
func (n Number) Int64() (int64, error) {
	f := n.Big()
	if f == nil {
		return 0, fmt.Errorf("no number")
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		return 0, fmt.Errorf("%s is not a whole number that fits int64", n.text)
	}
	return i, nil
}

// Float64 is the float64 nearest to the number; it is an error for no
// number and for one beyond float64's range.
func (n Number) Float64() (float64, error) {
	f := n.Big()
	if f == nil {
		return 0, fmt.Errorf("no number")
	}
	x, _ := f.Float64()
	if math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s is beyond float64's range", n.text)
	}
	return x, nil
}

// Big is the number as a new big.Float, exact; nil for no number.
func (n Number) Big() *big.Float {
	v, err := n.ctyNumber()
	if err != nil || v.IsNull() {
		return nil
	}
	return v.AsBigFloat()
}

// MarshalJSON writes the number as a JSON number, every digit of it, or
// null for no number.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.text == "" {
		return []byte("null"), nil
	}
	if _, err := n.ctyNumber(); err != nil {
		return nil, err
	}
	return []byte(n.text), nil
}

// UnmarshalJSON reads a JSON number, or null for no number.
func (n *Number) UnmarshalJSON(b []byte) error {
	var raw json.Number
	if string(b) == "null" {
		*n = Number{}
		return nil
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	p, err := ParseNumber(raw.String())
	if err != nil {
		return err
	}
	*n = p
	return nil
}
