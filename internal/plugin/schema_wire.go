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
// decoded in two parts: at once, everything but the schemas of types (the
// provider's own schema, provider_meta, capabilities, functions,
// diagnostics), and each type's schema only when it is first looked up.
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
}

// The fields of GetProviderSchema.Response that hold the schemas of
// types, maps from a type's name to its Schema message; the same names
// in protocol versions 5 and 6.
const (
	resourceSchemasField   = "resource_schemas"
	dataSourceSchemasField = "data_source_schemas"
	ephemeralSchemasField  = "ephemeral_resource_schemas"
)

// splitSchemaWire splits wire, a GetProviderSchema response whose message
// is described by md, into the schemas of types, by field name and type
// name, and head: every other field, in the same encoding (fields of a
// message may be encoded in any order, and a message is the
// concatenation of its fields). The map values are slices of wire.
//
// As with any protobuf map, a name given twice keeps its last schema.
func splitSchemaWire(wire []byte, md protoreflect.MessageDescriptor) (head []byte, types map[string]map[string][]byte, err error) {
	split := map[protowire.Number]string{}
	for _, name := range []string{resourceSchemasField, dataSourceSchemasField, ephemeralSchemasField} {
		if fd := md.Fields().ByName(protoreflect.Name(name)); fd != nil && fd.IsMap() {
			split[fd.Number()] = name
		}
	}
	types = map[string]map[string][]byte{}
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
		if types[name] == nil {
			types[name] = map[string][]byte{}
		}
		types[name][key] = value
	}
	return head, types, nil
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
// typeSchema.
func decodeWireSchema[R proto.Message](wire []byte, resp R,
	decodeHead func(R) *tfprotov6.GetProviderSchemaResponse,
	typeSchema func(wire []byte) (*tfprotov6.Schema, error)) (*wireSchema, error) {
	head, types, err := splitSchemaWire(wire, resp.ProtoReflect().Descriptor())
	if err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(head, resp); err != nil {
		return nil, err
	}
	return &wireSchema{
		head:        decodeHead(resp),
		resources:   types[resourceSchemasField],
		dataSources: types[dataSourceSchemasField],
		ephemeral:   types[ephemeralSchemasField],
		typeSchema:  typeSchema,
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
