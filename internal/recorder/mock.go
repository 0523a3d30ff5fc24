package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// mockMethods are the calls mock mode answers itself: those that would
// create, read or delete real objects.
var mockMethods = map[string]bool{
	"ApplyResourceChange": true,
	"ReadResource":        true,
	"ImportResourceState": true,
	"ReadDataSource":      true,
}

// The mock's answers:
//
//   - ApplyResourceChange: a destroy (null planned state) returns null;
//     otherwise the planned state with every unknown value filled in
//     (generated below), the planned private bytes kept.
//   - ReadResource: the current state and private bytes, as they are.
//   - ImportResourceState: one object of the requested type whose id is
//     the import ID, every other attribute null (nested blocks empty).
//   - ReadDataSource: the configuration, with each computed attribute it
//     leaves null generated.
//
// Generated values follow Terraform's test framework's mock providers
// (internal/moduletest/mocking): a string is 8 characters, a number 0, a
// bool false, a map or a collection of objects empty, an object has each
// attribute generated, a dynamic value is null. Four changes, so that the
// real provider's later plans and validations accept what the mock
// returned and a configuration can use it:
//
//   - the strings are not random but derived from a digest of the type
//     name, the configuration and the attribute's path, so two runs (and
//     two tools) given the same configuration get the same values;
//   - an attribute named arn or *_arn gets an ARN, one named *policy or
//     *json the JSON document {};
//   - only a string that names, identifies or locates an object (id,
//     *_id, name, url, endpoint, ...: identifying) gets eight characters;
//     other strings are empty;
//   - a list or set of strings gets three elements (a data source's
//     availability zones or subnet IDs are indexed by configurations).
func (p *proxy) mock(name string, md protoreflect.MethodDescriptor, req frame) (frame, error) {
	in := dynamicpb.NewMessage(md.Input())
	if err := proto.Unmarshal(req, in); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "recorder: decoding the request: %v", err)
	}
	out := dynamicpb.NewMessage(md.Output())
	typeName := field(in, "type_name").String()
	var err error
	switch name {
	case "ApplyResourceChange":
		err = p.mockApply(in, out, typeName)
	case "ReadResource":
		copyField(in, "current_state", out, "new_state")
		copyField(in, "private", out, "private")
		copyField(in, "current_identity", out, "new_identity")
	case "ImportResourceState":
		err = p.mockImport(in, out, typeName)
	case "ReadDataSource":
		err = p.mockRead(in, out, typeName)
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "recorder mock: %s %s: %v", name, typeName, err)
	}
	return proto.Marshal(out)
}

func copyField(from protoreflect.Message, fromName protoreflect.Name, to protoreflect.Message, toName protoreflect.Name) {
	ff, tf := from.Descriptor().Fields().ByName(fromName), to.Descriptor().Fields().ByName(toName)
	if ff == nil || tf == nil || !from.Has(ff) {
		return
	}
	to.Set(tf, from.Get(ff))
}

func (p *proxy) mockApply(in, out protoreflect.Message, typeName string) error {
	b, err := p.mustBlock(kindResource, typeName)
	if err != nil {
		return err
	}
	planned, err := p.dynamicIn(in, "planned_state", b.ty)
	if err != nil {
		return err
	}
	newState := planned
	if !planned.IsNull() {
		seed, err := p.seed(in, typeName, b.ty)
		if err != nil {
			return err
		}
		newState = fill(planned, b, seed, func(v cty.Value, _ *attribute) bool { return !v.IsKnown() })
	}
	copyField(in, "planned_private", out, "private")
	return setDynamic(out, "new_state", newState, b.ty)
}

func (p *proxy) mockImport(in, out protoreflect.Message, typeName string) error {
	b, err := p.mustBlock(kindResource, typeName)
	if err != nil {
		return err
	}
	attrs := map[string]cty.Value{}
	for n, a := range b.attrs {
		attrs[n] = cty.NullVal(a.ty)
	}
	for n, nb := range b.blocks {
		ty := b.ty.AttributeType(n)
		switch nb.nesting {
		case nestList:
			attrs[n] = cty.ListValEmpty(nb.block.ty)
		case nestSet:
			attrs[n] = cty.SetValEmpty(nb.block.ty)
		case nestMap:
			attrs[n] = cty.MapValEmpty(nb.block.ty)
		default:
			attrs[n] = cty.NullVal(ty)
		}
		if !attrs[n].Type().Equals(ty) {
			attrs[n] = cty.NullVal(ty)
		}
	}
	if a, ok := b.attrs["id"]; ok && a.ty == cty.String {
		attrs["id"] = cty.StringVal(field(in, "id").String())
	}
	state := cty.ObjectVal(attrs)
	fd := out.Descriptor().Fields().ByName("imported_resources")
	list := out.Mutable(fd).List()
	item := list.NewElement().Message()
	item.Set(item.Descriptor().Fields().ByName("type_name"), protoreflect.ValueOfString(typeName))
	if err := setDynamic(item, "state", state, b.ty); err != nil {
		return err
	}
	list.Append(protoreflect.ValueOfMessage(item))
	return nil
}

func (p *proxy) mockRead(in, out protoreflect.Message, typeName string) error {
	b, err := p.mustBlock(kindDataSource, typeName)
	if err != nil {
		return err
	}
	config, err := p.dynamicIn(in, "config", b.ty)
	if err != nil {
		return err
	}
	seed, err := p.seed(in, typeName, b.ty)
	if err != nil {
		return err
	}
	state := fill(config, b, seed, func(v cty.Value, a *attribute) bool {
		return !v.IsKnown() || (a != nil && a.computed && v.IsNull())
	})
	return setDynamic(out, "state", state, b.ty)
}

func (p *proxy) mustBlock(k kind, typeName string) (*block, error) {
	b, err := p.block(k, typeName)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("the provider's schema has no type %q", typeName)
	}
	return b, nil
}

// dynamicIn decodes the DynamicValue field name of m as ty.
func (p *proxy) dynamicIn(m protoreflect.Message, name protoreflect.Name, ty cty.Type) (cty.Value, error) {
	dv := field(m, name)
	if !dv.IsValid() {
		return cty.NullVal(ty), nil
	}
	v, err := decodeDynamic(field(dv.Message(), "msgpack").Bytes(), field(dv.Message(), "json").Bytes(), ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("decoding %s: %w", name, err)
	}
	return v, nil
}

// setDynamic sets the DynamicValue field name of m to v, as MessagePack.
func setDynamic(m protoreflect.Message, name protoreflect.Name, v cty.Value, ty cty.Type) error {
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	fd := m.Descriptor().Fields().ByName(name)
	dv := m.NewField(fd).Message()
	dv.Set(dv.Descriptor().Fields().ByName("msgpack"), protoreflect.ValueOfBytes(b))
	m.Set(fd, protoreflect.ValueOfMessage(dv))
	return nil
}

// seed is what generated values derive from: the type name and the
// configuration, which both tools send alike for the same resource.
func (p *proxy) seed(in protoreflect.Message, typeName string, ty cty.Type) (string, error) {
	config, err := p.dynamicIn(in, "config", ty)
	if err != nil {
		return "", err
	}
	js, err := json.Marshal(jsonOf(config))
	if err != nil {
		return "", err
	}
	return typeName + "\x00" + string(js), nil
}

// fill replaces each value of v for which want says so with a generated
// one, whole: the generated value of an object attribute is not filled
// again inside.
func fill(v cty.Value, b *block, seed string, want func(cty.Value, *attribute) bool) cty.Value {
	typeName, _, _ := strings.Cut(seed, "\x00")
	out, _ := cty.Transform(v, func(path cty.Path, v cty.Value) (cty.Value, error) {
		a := b.attributeAt(path)
		if !want(v, a) {
			return v, nil
		}
		g := generator{typeName: typeName, seed: seed, path: path}
		if a != nil {
			return g.attribute(a), nil
		}
		return g.value(v.Type(), path), nil
	})
	return out
}

// generator makes the values of one attribute.
type generator struct {
	typeName, seed string
	path           cty.Path
}

func (g generator) attribute(a *attribute) cty.Value {
	if a.nested != nil {
		ty := a.nested.impliedType()
		if a.nested.nesting != nestSingle && a.nested.nesting != nestGroup {
			return g.value(ty, g.path)
		}
		attrs := map[string]cty.Value{}
		for n, inner := range a.nested.attrs {
			attrs[n] = generator{g.typeName, g.seed, g.path.GetAttr(n)}.attribute(inner)
		}
		return cty.ObjectVal(attrs)
	}
	return g.value(a.ty, g.path)
}

func (g generator) value(ty cty.Type, path cty.Path) cty.Value {
	switch {
	case ty == cty.String:
		return cty.StringVal(g.str(path))
	case ty == cty.Number:
		return cty.Zero
	case ty == cty.Bool:
		return cty.False
	case (ty.IsListType() || ty.IsSetType()) && ty.ElementType() == cty.String:
		var elems []cty.Value
		for i := 0; i < 3; i++ {
			elems = append(elems, cty.StringVal(g.str(path.IndexInt(i))))
		}
		if ty.IsListType() {
			return cty.ListVal(elems)
		}
		return cty.SetVal(elems)
	case ty.IsListType():
		return cty.ListValEmpty(ty.ElementType())
	case ty.IsSetType():
		return cty.SetValEmpty(ty.ElementType())
	case ty.IsMapType():
		return cty.MapValEmpty(ty.ElementType())
	case ty.IsObjectType():
		attrs := map[string]cty.Value{}
		for n, at := range ty.AttributeTypes() {
			attrs[n] = g.value(at, path.GetAttr(n))
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal
		}
		return cty.ObjectVal(attrs)
	case ty.IsTupleType():
		var elems []cty.Value
		for i, et := range ty.TupleElementTypes() {
			elems = append(elems, g.value(et, path.IndexInt(i)))
		}
		if len(elems) == 0 {
			return cty.EmptyTupleVal
		}
		return cty.TupleVal(elems)
	}
	return cty.NullVal(ty)
}

// str is the string generated at path, by the name of the attribute it is
// in: an ARN, a JSON document, eight characters for what names or
// identifies an object (and for a collection's elements), else empty.
func (g generator) str(path cty.Path) string {
	sum := sha256.Sum256([]byte(g.seed + "\x00" + pathString(path)))
	token := hex.EncodeToString(sum[:])[:8]
	name, element := "", false
	for _, step := range path {
		switch s := step.(type) {
		case cty.GetAttrStep:
			name, element = s.Name, false
		case cty.IndexStep:
			element = true
		}
	}
	switch {
	case name == "arn" || strings.HasSuffix(name, "_arn") || strings.HasSuffix(name, "_arns"):
		service, rest := "mock", "resource"
		if parts := strings.SplitN(g.typeName, "_", 3); len(parts) == 3 {
			service, rest = parts[1], parts[2]
		}
		return fmt.Sprintf("arn:aws:%s:us-east-1:123456789012:%s/%s", service, rest, token)
	case strings.HasSuffix(name, "policy") || strings.HasSuffix(name, "json"):
		return "{}"
	case element || identifying(name):
		return token
	}
	return ""
}

// identifying says whether an attribute's name says it names, identifies
// or locates an object. Other strings are generated empty: a provider's
// plan checks some computed strings against other settings when they are
// not empty (hashicorp/aws refuses an SNS topic's fifo_throughput_scope
// on a standard topic), and empty is what a cloud returns for most unset
// settings.
func identifying(name string) bool {
	for _, s := range []string{"id", "name", "url", "endpoint", "key", "address", "arn"} {
		if name == s || strings.HasSuffix(name, "_"+s) || strings.HasSuffix(name, "_"+s+"s") {
			return true
		}
	}
	return false
}

func pathString(path cty.Path) string {
	var sb strings.Builder
	for _, step := range path {
		switch s := step.(type) {
		case cty.GetAttrStep:
			sb.WriteString("." + s.Name)
		case cty.IndexStep:
			sb.WriteString(fmt.Sprintf("[%#v]", s.Key.GoString()))
		}
	}
	return sb.String()
}
