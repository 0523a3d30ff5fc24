package recorder

import (
	"fmt"
	"sync"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// kind is what a type name names in a provider's schema.
type kind int

const (
	kindResource kind = iota
	kindDataSource
	kindEphemeral
	kindProvider
)

// Nesting modes, the same numbers in both protocol versions for blocks
// (Schema.NestedBlock.NestingMode) and nested attributes (Schema.Object).
const (
	nestSingle = 1
	nestList   = 2
	nestSet    = 3
	nestMap    = 4
	nestGroup  = 5
)

// block is the part of a schema block the wrapper needs: the types, to
// decode values, and which attributes are computed, to mock them.
type block struct {
	attrs  map[string]*attribute
	blocks map[string]*nestedBlock
	ty     cty.Type
}

type attribute struct {
	ty       cty.Type
	computed bool
	optional bool
	nested   *object // a nested attribute type (protocol 6 only)
}

type object struct {
	attrs   map[string]*attribute
	nesting int
}

type nestedBlock struct {
	nesting int
	block   *block
}

// schemas holds a provider's GetProviderSchema response as it came over
// the wire and decodes each type's schema on first use: a large provider's
// schema runs to tens of megabytes, of which a run uses a few types.
type schemas struct {
	mu      sync.Mutex
	desc    protoreflect.MessageDescriptor // the Schema message
	raw     map[kind]map[string][]byte     // wire bytes of each type's Schema
	decoded map[kind]map[string]*block
	diags   []any // the response's diagnostics, as logged
}

// newSchemas splits a GetProviderSchema response (resp is its
// descriptor) into each type's wire bytes.
func newSchemas(wire []byte, resp protoreflect.MessageDescriptor) (*schemas, error) {
	s := &schemas{
		desc:    resp.Fields().ByName("provider").Message(),
		raw:     map[kind]map[string][]byte{},
		decoded: map[kind]map[string]*block{},
	}
	fieldKind := map[protowire.Number]kind{}
	for name, k := range map[protoreflect.Name]kind{
		"resource_schemas":           kindResource,
		"data_source_schemas":        kindDataSource,
		"ephemeral_resource_schemas": kindEphemeral,
	} {
		if f := resp.Fields().ByName(name); f != nil {
			fieldKind[f.Number()] = k
		}
		s.raw[k] = map[string][]byte{}
	}
	s.raw[kindProvider] = map[string][]byte{}
	providerField := resp.Fields().ByName("provider").Number()
	b := wire
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var value []byte
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, protowire.ParseError(m)
			}
			value = v
			n = m
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
		}
		b = b[n:]
		switch k, ok := fieldKind[num]; {
		case num == providerField:
			s.raw[kindProvider][""] = value
		case ok:
			key, val, err := mapEntry(value)
			if err != nil {
				return nil, err
			}
			s.raw[k][key] = val
		}
	}
	return s, nil
}

// mapEntry splits a map entry's wire bytes into its string key (field 1)
// and bytes value (field 2).
func mapEntry(b []byte) (key string, value []byte, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return "", nil, fmt.Errorf("malformed schema map entry")
		}
		b = b[n:]
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return "", nil, protowire.ParseError(m)
		}
		b = b[m:]
		switch num {
		case 1:
			key = string(v)
		case 2:
			value = v
		}
	}
	return key, value, nil
}

// get returns the schema of the type name of kind k (the provider's own
// for kindProvider, whatever the name), or nil when the provider has none.
func (s *schemas) get(k kind, name string) (*block, error) {
	if k == kindProvider {
		name = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.decoded[k][name]; ok {
		return b, nil
	}
	raw, ok := s.raw[k][name]
	if !ok {
		return nil, nil
	}
	m := dynamicpb.NewMessage(s.desc)
	if err := proto.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("decoding the schema of %s: %w", name, err)
	}
	b, err := blockFrom(m.Get(s.desc.Fields().ByName("block")).Message())
	if err != nil {
		return nil, fmt.Errorf("the schema of %s: %w", name, err)
	}
	if s.decoded[k] == nil {
		s.decoded[k] = map[string]*block{}
	}
	s.decoded[k][name] = b
	return b, nil
}

// field reads a message's field by name; the zero value when the message
// has no such field.
func field(m protoreflect.Message, name protoreflect.Name) protoreflect.Value {
	f := m.Descriptor().Fields().ByName(name)
	if f == nil {
		return protoreflect.Value{}
	}
	return m.Get(f)
}

func blockFrom(m protoreflect.Message) (*block, error) {
	b := &block{attrs: map[string]*attribute{}, blocks: map[string]*nestedBlock{}}
	attrs := map[string]cty.Type{}
	list := field(m, "attributes").List()
	for i := 0; i < list.Len(); i++ {
		am := list.Get(i).Message()
		a, err := attributeFrom(am)
		if err != nil {
			return nil, err
		}
		name := field(am, "name").String()
		b.attrs[name] = a
		attrs[name] = a.ty
	}
	list = field(m, "block_types").List()
	for i := 0; i < list.Len(); i++ {
		nm := list.Get(i).Message()
		inner, err := blockFrom(field(nm, "block").Message())
		if err != nil {
			return nil, err
		}
		nb := &nestedBlock{nesting: int(field(nm, "nesting").Enum()), block: inner}
		name := field(nm, "type_name").String()
		b.blocks[name] = nb
		switch nb.nesting {
		case nestSingle, nestGroup:
			attrs[name] = inner.ty
		case nestList:
			// A list or map of blocks holding a dynamically typed
			// attribute is a tuple or object: each element may differ.
			if inner.ty.HasDynamicTypes() {
				attrs[name] = cty.DynamicPseudoType
			} else {
				attrs[name] = cty.List(inner.ty)
			}
		case nestSet:
			attrs[name] = cty.Set(inner.ty)
		case nestMap:
			if inner.ty.HasDynamicTypes() {
				attrs[name] = cty.DynamicPseudoType
			} else {
				attrs[name] = cty.Map(inner.ty)
			}
		default:
			return nil, fmt.Errorf("block type %s has nesting mode %d", name, nb.nesting)
		}
	}
	b.ty = cty.Object(attrs)
	return b, nil
}

func attributeFrom(m protoreflect.Message) (*attribute, error) {
	a := &attribute{computed: field(m, "computed").Bool(), optional: field(m, "optional").Bool()}
	if nt := field(m, "nested_type"); nt.IsValid() && nt.Message().IsValid() {
		o, err := objectFrom(nt.Message())
		if err != nil {
			return nil, err
		}
		a.nested, a.ty = o, o.impliedType()
		return a, nil
	}
	ty, err := ctyjson.UnmarshalType(field(m, "type").Bytes())
	if err != nil {
		return nil, fmt.Errorf("attribute %s: %w", field(m, "name").String(), err)
	}
	a.ty = ty
	return a, nil
}

func objectFrom(m protoreflect.Message) (*object, error) {
	o := &object{attrs: map[string]*attribute{}, nesting: int(field(m, "nesting").Enum())}
	list := field(m, "attributes").List()
	for i := 0; i < list.Len(); i++ {
		am := list.Get(i).Message()
		a, err := attributeFrom(am)
		if err != nil {
			return nil, err
		}
		o.attrs[field(am, "name").String()] = a
	}
	return o, nil
}

func (o *object) impliedType() cty.Type {
	attrs := map[string]cty.Type{}
	for name, a := range o.attrs {
		attrs[name] = a.ty
	}
	ty := cty.Object(attrs)
	switch o.nesting {
	case nestList:
		return cty.List(ty)
	case nestSet:
		return cty.Set(ty)
	case nestMap:
		return cty.Map(ty)
	}
	return ty
}

// attributeAt is the attribute a path inside a value of b leads to, or
// nil when it leads to a block or nowhere. Index steps, into nested
// blocks' and nested attributes' collections, are skipped.
func (b *block) attributeAt(path cty.Path) *attribute {
	var attrs map[string]*attribute
	blk := b
	var found *attribute
	for _, step := range path {
		name, ok := step.(cty.GetAttrStep)
		if !ok {
			continue
		}
		switch {
		case found != nil && found.nested != nil:
			attrs = found.nested.attrs
		case found != nil:
			return nil // inside an attribute of object type, not a schema attribute
		case blk != nil:
			attrs = blk.attrs
			if nb, ok := blk.blocks[name.Name]; ok {
				blk = nb.block
				continue
			}
		default:
			return nil
		}
		a, ok := attrs[name.Name]
		if !ok {
			return nil
		}
		found, blk = a, nil
	}
	return found
}
