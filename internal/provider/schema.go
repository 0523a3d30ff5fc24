package provider

import (
	"sort"
	"sync/atomic"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/ctysame"
)

// Schema is everything a provider declares about its configuration,
// resource types and data sources.
//
// The schemas of types are reached through Types.Get, which decodes a
// plugin's on first use (see Types); a nil *Types has no type.
type Schema struct {
	Provider    *Block
	Resources   *Types
	DataSources *Types
	// EphemeralResources are the ephemeral resource types; nil when the
	// provider has none.
	EphemeralResources *Types
	// Functions are the provider-defined functions (see Functions); nil
	// when it has none.
	Functions *Functions
}

// ResourceSchema is the schema of one resource type or data source.
type ResourceSchema struct {
	// Version increases whenever the stored form of the object changes in
	// a way that needs UpgradeResourceState.
	Version int64
	Block   *Block
	// Captured names the attributes that code running inside deployed
	// infrastructure may read at run time (a router's url, say). Such code
	// finds each one in the environment variable named by CapturedEnvName.
	// It is the provider's own knowledge: the plugin protocol has no room
	// for it, so schemas read from plugins leave it empty.
	Captured []string
	// Closures is how a Go program built with the SDK hands the type
	// closures of its own code to run; the bindings generator writes the
	// matching methods. Like Captured, it is the provider's own knowledge
	// and absent from schemas read from plugins.
	Closures ClosureAPI
	// Client is how code running in a deployed closure opens a client of
	// the resource, for the bindings' Client method; nil when there is
	// none. Like Captured, it is the provider's own knowledge.
	Client *ClientAPI
}

// ClientAPI is a Go function that opens a client of a resource from one of
// its captured properties: Package.Open(property) returning (Type, error).
type ClientAPI struct {
	// Import is the package's import path, Package its name.
	Import, Package string
	// Open is the function, Type what it returns with an error
	// (*kv.Client).
	Open, Type string
	// Property is the captured property Open is given.
	Property string
}

// ClosureAPI names the methods Go bindings give a resource type for
// deploying closures of the program itself.
type ClosureAPI string

const (
	// NoClosures: the type takes no closures.
	NoClosures ClosureAPI = ""
	// ClosureRoutes is a router's: Get, Post, Put, Delete, Patch and
	// Handle deploy an HTTP handler as a function behind a route. The
	// provider must have <name>_function and <name>_route types.
	ClosureRoutes ClosureAPI = "routes"
	// ClosureTests is a tester's: Test adds a test that runs a function
	// of the program.
	ClosureTests ClosureAPI = "tests"
	// ClosureHandler is a function's: NewXHandler declares one that
	// serves an HTTP handler of the program.
	ClosureHandler ClosureAPI = "handler"
)

// Block describes an object: its attributes and its nested block types.
type Block struct {
	Attributes  map[string]*Attribute
	BlockTypes  map[string]*NestedBlock
	Description string
	Deprecated  bool

	// implied caches ImpliedType: the engine asks for it several times
	// per resource instance, and an object type is a map to rebuild.
	implied atomic.Pointer[cty.Type]
	// types shares the types of the objects the engine holds (see
	// SharedType).
	types ctysame.Types
	// writeOnly caches HasWriteOnly, sensitive hasSensitive and
	// nestedAttribute hasNestedAttribute: 0 not known yet, 1 no, 2 yes.
	writeOnly, sensitive, nestedAttribute atomic.Uint32
	// empty caches EmptyValue: every planned create starts from it.
	empty atomic.Pointer[cty.Value]
	// attrList caches attributeList.
	attrList atomic.Pointer[[]namedAttribute]
}

// namedAttribute is an attribute with its name.
type namedAttribute struct {
	name string
	a    *Attribute
}

// attributeList is b.Attributes as a list in name order, made once:
// ProposedNew goes through them for every instance it plans, and ranging
// over a map starts at a random place each time and walks its groups.
//
// A block must not be changed after attributeList is first called.
func (b *Block) attributeList() []namedAttribute {
	if l := b.attrList.Load(); l != nil {
		return *l
	}
	l := make([]namedAttribute, 0, len(b.Attributes))
	for name, a := range b.Attributes {
		l = append(l, namedAttribute{name, a})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].name < l[j].name })
	b.attrList.Store(&l)
	return l
}

// HasWriteOnly reports whether the block or a block nested in it has a
// write-only attribute. The engine asks for every instance it plans, and
// a large schema has many nested blocks to visit.
//
// A block must not be changed after HasWriteOnly is first called.
func (b *Block) HasWriteOnly() bool {
	return b.hasAttribute(&b.writeOnly, func(a *Attribute) bool { return a.WriteOnly }, (*Block).HasWriteOnly)
}

// hasSensitive reports whether the block or a block nested in it has a
// sensitive attribute (not looking inside nested attributes, as
// SensitivePaths does not): without one, SensitivePaths has nothing to
// find in any value. Cached as HasWriteOnly is.
func (b *Block) hasSensitive() bool {
	return b.hasAttribute(&b.sensitive, func(a *Attribute) bool { return a.Sensitive }, (*Block).hasSensitive)
}

// hasNestedAttribute reports whether the block or a block nested in it
// has an attribute with attributes nested in it. Cached as HasWriteOnly
// is.
func (b *Block) hasNestedAttribute() bool {
	return b.hasAttribute(&b.nestedAttribute, func(a *Attribute) bool { return a.Nested != nil }, (*Block).hasNestedAttribute)
}

// hasAttribute reports whether one of b's attributes is what it looks
// for, or nested holds for one of its nested blocks, caching the answer
// in cache: 0 not known yet, 1 no, 2 yes.
func (b *Block) hasAttribute(cache *atomic.Uint32, is func(*Attribute) bool, nested func(*Block) bool) bool {
	if b == nil {
		return false
	}
	switch cache.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	has := false
	for _, a := range b.Attributes {
		has = has || is(a)
	}
	for _, nb := range b.BlockTypes {
		has = has || nested(&nb.Block)
	}
	if has {
		cache.Store(2)
	} else {
		cache.Store(1)
	}
	return has
}

// Attribute describes one attribute of a block.
type Attribute struct {
	Type        cty.Type
	Description string
	Required    bool
	Optional    bool
	Computed    bool
	Sensitive   bool
	Deprecated  bool
	// WriteOnly attributes are given to the provider from the
	// configuration and never come back: plans and state hold null for
	// them, so a secret set there is never written down.
	WriteOnly bool
	// Nested describes an attribute whose value is structured like a
	// block (protocol 6's nested attributes); Type is then the type of
	// that structure, and Nested says which of its attributes the
	// provider computes. Nil for plain attributes.
	Nested *NestedAttributes
}

// NestedAttributes is the structure of a nested attribute: one object
// (NestingSingle) or a list, set or map of them.
type NestedAttributes struct {
	Nesting    Nesting
	Attributes map[string]*Attribute
}

// Nesting is how a nested block type may appear inside its parent.
type Nesting int

const (
	NestingSingle Nesting = iota
	NestingGroup
	NestingList
	NestingSet
	NestingMap
)

func (n Nesting) String() string {
	switch n {
	case NestingSingle:
		return "single"
	case NestingGroup:
		return "group"
	case NestingList:
		return "list"
	case NestingSet:
		return "set"
	case NestingMap:
		return "map"
	}
	return "invalid"
}

// NestedBlock describes a nested block type.
type NestedBlock struct {
	Block
	Nesting  Nesting
	MinItems int
	MaxItems int
}

// ImpliedType is the cty type of an object conforming to the block.
//
// A block must not be changed after ImpliedType is first called.
func (b *Block) ImpliedType() cty.Type {
	if b == nil {
		return cty.EmptyObject
	}
	if t := b.implied.Load(); t != nil {
		return *t
	}
	t := b.impliedType()
	b.implied.Store(&t)
	return t
}

// SharedType is v, an object of this block held for a while, with the
// type of an equal object held before: one type map for all of them
// instead of one each (see ctysame.Types). Nothing else changes.
func (b *Block) SharedType(v cty.Value) cty.Value {
	if b == nil {
		return v
	}
	return b.types.Share(v)
}

func (b *Block) impliedType() cty.Type {
	atys := make(map[string]cty.Type, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		atys[name] = a.Type
	}
	for name, nb := range b.BlockTypes {
		atys[name] = nb.impliedType()
	}
	return cty.Object(atys)
}

func (nb *NestedBlock) impliedType() cty.Type {
	ety := nb.Block.ImpliedType()
	switch nb.Nesting {
	case NestingSingle, NestingGroup:
		return ety
	case NestingList:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.List(ety)
	case NestingSet:
		return cty.Set(ety)
	case NestingMap:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.Map(ety)
	}
	panic("invalid nesting mode")
}

// AttributeNames returns the block's attribute names in sorted order.
func (b *Block) AttributeNames() []string {
	names := make([]string, 0, len(b.Attributes))
	for n := range b.Attributes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BlockTypeNames returns the block's nested block type names in sorted order.
func (b *Block) BlockTypeNames() []string {
	names := make([]string, 0, len(b.BlockTypes))
	for n := range b.BlockTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SensitivePaths lists the paths within val (an object of the block's type)
// that the schema marks sensitive.
func (b *Block) SensitivePaths(val cty.Value, base cty.Path) []cty.Path {
	var out []cty.Path
	if b == nil || val.IsNull() || !val.IsKnown() || !b.hasSensitive() {
		return nil
	}
	for name, a := range b.Attributes {
		if a.Sensitive {
			out = append(out, appendPath(base, cty.GetAttrStep{Name: name}))
		}
	}
	for name, nb := range b.BlockTypes {
		if !val.Type().IsObjectType() || !val.Type().HasAttribute(name) {
			continue
		}
		bv := ctysame.Attr(val, name)
		if bv.IsNull() || !bv.IsKnown() {
			continue
		}
		p := appendPath(base, cty.GetAttrStep{Name: name})
		switch nb.Nesting {
		case NestingSingle, NestingGroup:
			out = append(out, nb.Block.SensitivePaths(bv, p)...)
		default:
			for it := bv.ElementIterator(); it.Next(); {
				k, ev := it.Element()
				out = append(out, nb.Block.SensitivePaths(ev, appendPath(p, cty.IndexStep{Key: k}))...)
			}
		}
	}
	return out
}

func appendPath(p cty.Path, step cty.PathStep) cty.Path {
	out := make(cty.Path, len(p)+1)
	copy(out, p)
	out[len(p)] = step
	return out
}

// EmptyValue is the value of a block written with an empty body: every
// attribute null, no nested blocks (a group's block has its own empty
// value). It is what an implied provider configuration holds.
func (b *Block) EmptyValue() cty.Value {
	if b == nil {
		return cty.EmptyObjectVal
	}
	if v := b.empty.Load(); v != nil {
		return *v
	}
	v := b.emptyValue()
	b.empty.Store(&v)
	return v
}

func (b *Block) emptyValue() cty.Value {
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		vals[name] = cty.NullVal(a.Type)
	}
	for name, nb := range b.BlockTypes {
		ety := nb.Block.ImpliedType()
		switch nb.Nesting {
		case NestingSingle:
			vals[name] = cty.NullVal(ety)
		case NestingGroup:
			vals[name] = nb.Block.EmptyValue()
		case NestingList:
			if ety.HasDynamicTypes() {
				vals[name] = cty.EmptyTupleVal
			} else {
				vals[name] = cty.ListValEmpty(ety)
			}
		case NestingSet:
			vals[name] = cty.SetValEmpty(ety)
		case NestingMap:
			if ety.HasDynamicTypes() {
				vals[name] = cty.EmptyObjectVal
			} else {
				vals[name] = cty.MapValEmpty(ety)
			}
		}
	}
	return cty.ObjectVal(vals)
}
