package protocol

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// DecodeValue decodes a value Terraform sent, given the type its schema
// implies. An absent value is null.
func DecodeValue(dv *tfprotov6.DynamicValue, ty cty.Type) (cty.Value, error) {
	switch {
	case dv == nil:
		return cty.NullVal(ty), nil
	case dv.MsgPack != nil:
		return ctymsgpack.Unmarshal(dv.MsgPack, ty)
	case dv.JSON != nil:
		return ctyjson.Unmarshal(dv.JSON, ty)
	}
	return cty.NullVal(ty), nil
}

// EncodeValue encodes v, which must conform to ty, as MessagePack, the
// encoding Terraform prefers. Unknown values survive; marked ones do not,
// since a mark has no representation on the wire: unmark first, and
// declare sensitivity in the schema.
func EncodeValue(v cty.Value, ty cty.Type) (*tfprotov6.DynamicValue, error) {
	if v == cty.NilVal {
		v = cty.NullVal(ty)
	}
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.DynamicValue{MsgPack: b}, nil
}
