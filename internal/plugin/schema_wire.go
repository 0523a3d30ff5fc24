package plugin

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A GetProviderSchema response is kept in the protocol's encoding and
// decoded in two parts: at once, everything but the schemas of types and
// the signatures of functions (the provider's own schema, provider_meta,
// capabilities, diagnostics), and each type's schema or function's
// signature only when it is first looked up.
// The AWS provider's response is 5 MB on the wire and became 35 MB of
// decoded schema, three representations of 87,055 attributes, which every
// garbage collection of a plan then scanned, though a configuration
// uses a few of its 2,100 types; kept as bytes, it is one allocation
// with no pointers in it.

// wireSchema is a GetProviderSchema response split for lazy decoding.
type wireSchema struct {
	// head is the response without the schemas of types, decoded.
	head *tfprotov6.GetProviderSchemaResponse
	// resources, dataSources and ephemeral are the schemas of types, by
	// name, each in the protocol's encoding of its Schema message (a
	// slice of the response), for typeSchema.
	resources, dataSources, ephemeral map[string][]byte
	// typeSchema decodes one of them.
	typeSchema func(wire []byte) (*tfprotov6.Schema, error)
	// functions are the signatures of functions, by name, each in the
	// encoding of its Function message, for function.
	functions map[string][]byte
	function  func(wire []byte) (*tfprotov6.Function, error)
}

// The fields of GetProviderSchema.Response that are decoded by the
// entry: maps from a type's name to its Schema message, and from a
// function's name to its Function message; the same names in protocol
// versions 5 and 6.
const (
	resourceSchemasField   = "resource_schemas"
	dataSourceSchemasField = "data_source_schemas"
	ephemeralSchemasField  = "ephemeral_resource_schemas"
	functionsField         = "functions"
)

// splitSchemaWire splits wire, a GetProviderSchema response whose message
// is described by md, into the schemas of types and the signatures of
// functions, by field name and name, and head: every other field, in the same encoding (fields of a
// message may be encoded in any order, and a message is the
// concatenation of its fields). The map values are slices of wire.
//
// As with any protobuf map, a name given twice keeps its last schema.
func splitSchemaWire(wire []byte, md protoreflect.MessageDescriptor) (head []byte, byName map[string]map[string][]byte, err error) {
	split := map[protowire.Number]string{}
	for _, name := range []string{resourceSchemasField, dataSourceSchemasField, ephemeralSchemasField, functionsField} {
		if fd := md.Fields().ByName(protoreflect.Name(name)); fd != nil && fd.IsMap() {
			split[fd.Number()] = name
		}
	}
	byName = map[string]map[string][]byte{}
	head = make([]byte, 0, 4096)
	for b := wire; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, nil, protowire.ParseError(m)
		}
		field, whole := b[n:n+m], b[:n+m]
		b = b[n+m:]
		name, ok := split[num]
		if !ok || typ != protowire.BytesType {
			head = append(head, whole...)
			continue
		}
		entry, _ := protowire.ConsumeBytes(field)
		key, value, err := mapEntry(entry)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if byName[name] == nil {
			byName[name] = map[string][]byte{}
		}
		byName[name][key] = value
	}
	return head, byName, nil
}

// mapEntry reads an entry of a map<string, message>: its key (field 1)
// and its value's encoding (field 2), absent fields being empty.
func mapEntry(b []byte) (key string, value []byte, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", nil, protowire.ParseError(n)
		}
		b = b[n:]
		if typ != protowire.BytesType || (num != 1 && num != 2) {
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return "", nil, protowire.ParseError(m)
			}
			b = b[m:]
			continue
		}
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return "", nil, protowire.ParseError(m)
		}
		b = b[m:]
		if num == 1 {
			key = string(v)
		} else {
			value = v
		}
	}
	return key, value, nil
}

// decodeWireSchema splits wire, a GetProviderSchema response, decoding
// its head into resp with decodeHead and leaving the schemas of types to
// typeSchema and the signatures of functions to function.
func decodeWireSchema[R proto.Message](wire []byte, resp R,
	decodeHead func(R) *tfprotov6.GetProviderSchemaResponse,
	typeSchema func(wire []byte) (*tfprotov6.Schema, error),
	function func(wire []byte) (*tfprotov6.Function, error)) (*wireSchema, error) {
	head, byName, err := splitSchemaWire(wire, resp.ProtoReflect().Descriptor())
	if err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(head, resp); err != nil {
		return nil, err
	}
	return &wireSchema{
		head:        decodeHead(resp),
		resources:   byName[resourceSchemasField],
		dataSources: byName[dataSourceSchemasField],
		ephemeral:   byName[ephemeralSchemasField],
		typeSchema:  typeSchema,
		functions:   byName[functionsField],
		function:    function,
	}, nil
}

// rawCodec is a gRPC codec that hands a response back undecoded, into a
// *rawMessage, so that a GetProviderSchema response can be kept as sent
// without being decoded in full first. Requests are encoded as protobuf.
// Its name is protobuf's, so the call is the one the provider expects.
type rawCodec struct{}

type rawMessage []byte

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot encode %T", v)
	}
	return proto.Marshal(m)
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	raw, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("rawCodec: cannot decode into %T", v)
	}
	// gRPC does not promise that data outlives the call.
	*raw = bytes.Clone(data)
	return nil
}
