package sdk

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// bigID is an id as providers hand them out, beyond float64's 53 bits.
const bigID = 7227701560655103598

func TestFromCty(t *testing.T) {
	id := cty.NumberIntVal(bigID)
	bigInt, _ := new(big.Int).SetString("72277015606551035981234", 10)
	type tagged struct {
		Tags []int `tether:"tags"`
	}
	for _, tc := range []struct {
		name    string
		in      cty.Value
		into    any // a pointer to a variable of the wanted type
		want    any
		wantErr string
	}{
		{"int64 id", id, new(int64), int64(bigID), ""},
		{"uint64 id", id, new(uint64), uint64(bigID), ""},
		{"json.Number id", id, new(json.Number), json.Number("7227701560655103598"), ""},
		{"string id", id, new(string), "7227701560655103598", ""},
		{"any id", id, new(any), int64(bigID), ""},
		{"any huge", cty.NumberVal(new(big.Float).SetInt(bigInt)), new(any), bigInt, ""},
		{"any fraction", cty.NumberFloatVal(0.5), new(any), 0.5, ""},
		{"big.Int", cty.NumberVal(new(big.Float).SetInt(bigInt)), new(big.Int), *bigInt, ""},
		{"not whole", cty.NumberFloatVal(1.5), new(int64), nil, "1.5 is not a whole number that fits int64"},
		{"map element", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x")}), new(map[string]int), nil, `at ["a"]: a number is required`},
		{"list in a struct", cty.ObjectVal(map[string]cty.Value{"tags": cty.ListVal([]cty.Value{cty.StringVal("1"), cty.StringVal("x")})}), new(tagged), nil, `at tags[1]: a number is required`},
		{"unknown", cty.ObjectVal(map[string]cty.Value{"tags": cty.UnknownVal(cty.List(cty.Number))}), new(tagged), nil, "at tags: it is not known yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := reflect.ValueOf(tc.into).Elem()
			err := fromCty(tc.in, dst)
			switch {
			case tc.wantErr != "":
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("error %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("error %v", err)
			default:
				got := dst.Interface()
				if g, ok := got.(*big.Int); ok {
					if g.Cmp(tc.want.(*big.Int)) != 0 {
						t.Errorf("got %v, want %v", g, tc.want)
					}
					return
				}
				if g, ok := got.(big.Int); ok {
					w := tc.want.(big.Int)
					if g.Cmp(&w) != 0 {
						t.Errorf("got %v, want %v", &g, &w)
					}
					return
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %#v, want %#v", got, tc.want)
				}
			}
		})
	}
}

// Numbers the program gives keep every digit on their way to cty.
func TestNumbersIntoCty(t *testing.T) {
	huge, _ := new(big.Int).SetString("72277015606551035981234", 10)
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"int64", int64(bigID), "7227701560655103598"},
		{"uint64", uint64(bigID), "7227701560655103598"},
		{"big.Int", huge, "72277015606551035981234"},
		{"big.Float", new(big.Float).SetInt(huge), "72277015606551035981234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &builder{where: "test"}
			tm := b.value(reflect.ValueOf(tc.in), "", 0)
			if len(b.diags) > 0 || tm.kind != tKnown {
				t.Fatalf("%v %v", b.diags, tm.kind)
			}
			if got := tm.val.AsBigFloat().Text('f', -1); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
