package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
	"math/big"
)

// String returns a pointer to s, for an optional string field of generated
// bindings: Dir: tether.String("") sets dir to the empty string, while a
// nil field leaves it unset. s may hold tokens (an Output's String(), or
// fmt.Sprintf with Outputs), as any string argument may.
func String(s string) *string {
	return sdk.String(s)
}

// Bool returns a pointer to b, for an optional bool field of generated
// bindings: HTTP: tether.Bool(false) sets http to false, while a nil
// field leaves it unset and the provider's default applies.
func Bool(b bool) *bool {
	return sdk.Bool(b)
}

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
//
// Number is the implementation's type under this name (an alias), so
// that a Number converts exactly wherever the SDK meets one; go doc shows
// its methods (IsSet, String, Int64, Float64, Big, MarshalJSON,
// UnmarshalJSON) under github.com/tetherhq/tether/internal/sdk.Number.
type Number = sdk.Number

// NumberInput is what a number argument of generated bindings takes: a
// Number, or an Output[Number] (a getter's, or computed with Apply), so
// that one resource's number goes straight into another's, exact at any
// size: builtin.RandomArgs{Length: other.Length()}. A nil NumberInput, or
// one holding the zero Number, is unset. Only Number and Output[Number]
// implement it.
type NumberInput = sdk.NumberInput

// Int returns the number i.
func Int(i int64) Number {
	return sdk.Int(i)
}

// Uint returns the number u.
func Uint(u uint64) Number {
	return sdk.Uint(u)
}

// Float returns the number f: the shortest decimal that is f, so
// Float(0.1) is 0.1, as in Terraform's language. A NaN or an infinity has
// no Terraform equivalent: it is an error where the Number is given.
func Float(f float64) Number {
	return sdk.Float(f)
}

// BigNumber returns the number f holds; a nil f is no number. An
// infinity is an error where the Number is given.
func BigNumber(f *big.Float) Number {
	return sdk.BigNumber(f)
}

// ParseNumber returns the number written in s, in decimal, with an
// optional fraction and exponent (42, -1.5, 6.02e23), as Terraform's
// language writes numbers.
func ParseNumber(s string) (Number, error) {
	return sdk.ParseNumber(s)
}
