package tftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/provider"
)

// Mock is a mock_provider block: the provider it stands in for, by local
// name, and the values its mock_resource and mock_data blocks give.
type Mock struct {
	Name string
	// Resources and Data are the defaults by type name.
	Resources, Data map[string]Defaults
	// Overrides are its override_resource and override_data blocks,
	// for the objects of its provider alone.
	Overrides []*Override
	// UseForPlan is its override_during = plan, the default of its
	// blocks'.
	UseForPlan bool
	DeclRange  hcl.Range
}

// Defaults is a mock_resource's or mock_data's defaults: an object of
// attribute values, and where it is written.
type Defaults struct {
	Value cty.Value
	Range hcl.Range
	// Block is where its block is written.
	Block hcl.Range
	// UseForPlan is override_during = plan: a created object's computed
	// attributes take their values while planning.
	UseForPlan bool
}

// mockProvider serves a provider's schema without the provider: nothing
// is configured, created or read anywhere. As in terraform test, planning
// leaves the computed attributes the configuration does not set unknown;
// applying (and reading a data source) gives them the mock's defaults, or
// generated values: 8 random characters for a string, 0, false, and empty
// collections.
type mockProvider struct {
	schema *provider.Schema
	mock   *Mock
	// what names it in messages: "mock of provider \"aws\"", or an
	// override's "override of aws_s3_bucket.b".
	what string
}

// NewMockProvider is the provider.Provider of mock m with schema s.
func NewMockProvider(s *provider.Schema, m *Mock) provider.Provider {
	return NewOverriding(&mockProvider{schema: s, mock: m, what: fmt.Sprintf("mock of provider %q", m.Name)}, m.Overrides)
}

func (p *mockProvider) GetSchema() (*provider.Schema, hcl.Diagnostics)   { return p.schema, nil }
func (p *mockProvider) ValidateProviderConfig(cty.Value) hcl.Diagnostics { return nil }
func (p *mockProvider) ValidateResourceConfig(string, cty.Value) hcl.Diagnostics {
	return nil
}
func (p *mockProvider) ValidateDataSourceConfig(string, cty.Value) hcl.Diagnostics {
	return nil
}
func (p *mockProvider) ValidateEphemeralConfig(string, cty.Value) hcl.Diagnostics {
	return nil
}
func (p *mockProvider) ConfigureProvider(context.Context, cty.Value) hcl.Diagnostics { return nil }
func (p *mockProvider) Close() error                                                 { return nil }

func (p *mockProvider) refuse(what string) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported by a mock provider",
		Detail: fmt.Sprintf("The %s cannot %s.", p.what, what), Subject: p.mock.DeclRange.Ptr()}}
}

func (p *mockProvider) resource(kind *provider.Types, typ string) (*provider.ResourceSchema, hcl.Diagnostics) {
	rs, ok, err := kind.Get(typ)
	if err != nil || !ok {
		return nil, p.refuse(fmt.Sprintf("serve %s, which its provider's schema does not declare", typ))
	}
	return rs, nil
}

func (p *mockProvider) UpgradeResourceState(_ context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	rs, diags := p.resource(p.schema.Resources, req.TypeName)
	if diags.HasErrors() {
		return provider.UpgradeResponse{Diagnostics: diags}
	}
	v, err := ctyjson.Unmarshal(req.RawStateJSON, rs.Block.ImpliedType())
	if err != nil {
		return provider.UpgradeResponse{Diagnostics: p.refuse(fmt.Sprintf("read a recorded %s: %v", req.TypeName, err))}
	}
	return provider.UpgradeResponse{UpgradedState: v}
}

func (p *mockProvider) ReadResource(_ context.Context, req provider.ReadRequest) provider.ReadResponse {
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (p *mockProvider) PlanResourceChange(_ context.Context, req provider.PlanRequest) provider.PlanResponse {
	if req.ProposedNewState.IsNull() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState}
	}
	if !req.PriorState.IsNull() {
		// An update: as in terraform test, no computed value changes.
		return provider.PlanResponse{PlannedState: req.ProposedNewState}
	}
	rs, diags := p.resource(p.schema.Resources, req.TypeName)
	if diags.HasErrors() {
		return provider.PlanResponse{Diagnostics: diags}
	}
	if d, ok := p.mock.Resources[req.TypeName]; ok && d.UseForPlan {
		v, diags := p.known(rs.Block, req.ProposedNewState, d, cty.Value.IsNull)
		return provider.PlanResponse{PlannedState: v, Diagnostics: diags}
	}
	planned := fillComputed(rs.Block, req.ProposedNewState, func(a *provider.Attribute, v cty.Value, _ cty.Value) (cty.Value, bool) {
		if v.IsNull() {
			return cty.UnknownVal(a.Type), true
		}
		return v, false
	}, cty.NilVal)
	return provider.PlanResponse{PlannedState: planned}
}

func (p *mockProvider) ApplyResourceChange(_ context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if req.PlannedState.IsNull() {
		return provider.ApplyResponse{NewState: req.PlannedState}
	}
	rs, diags := p.resource(p.schema.Resources, req.TypeName)
	if diags.HasErrors() {
		return provider.ApplyResponse{NewState: cty.NullVal(req.PlannedState.Type()), Diagnostics: diags}
	}
	v, diags := p.known(rs.Block, req.PlannedState, p.mock.Resources[req.TypeName], func(v cty.Value) bool { return !v.IsKnown() })
	return provider.ApplyResponse{NewState: v, Diagnostics: diags}
}

func (p *mockProvider) ReadDataSource(_ context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	rs, diags := p.resource(p.schema.DataSources, req.TypeName)
	if diags.HasErrors() {
		return provider.ReadDataResponse{Diagnostics: diags}
	}
	v, diags := p.known(rs.Block, req.Config, p.mock.Data[req.TypeName], cty.Value.IsNull)
	return provider.ReadDataResponse{State: v, Diagnostics: diags}
}

// known gives the computed attributes of v that want selects their
// values: the defaults' where they set one, generated ones otherwise.
func (p *mockProvider) known(b *provider.Block, v cty.Value, defaults Defaults, want func(cty.Value) bool) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	at := defaults.Range
	if defaults.Value == cty.NilVal {
		defaults.Value, at = cty.EmptyObjectVal, p.mock.DeclRange
	}
	out := fillComputed(b, v, func(a *provider.Attribute, v, given cty.Value) (cty.Value, bool) {
		if !want(v) {
			return v, false
		}
		if given == cty.NilVal {
			return generate(a.Type), true
		}
		c, err := convert.Convert(given, a.Type)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid mock value",
				Detail:  fmt.Sprintf("A value of the %s does not fit its attribute's type %s: %v.", p.what, a.Type.FriendlyName(), err),
				Subject: at.Ptr()})
			return generate(a.Type), true
		}
		return c, true
	}, defaults.Value)
	return out, diags
}

// fillComputed replaces the computed attributes of v (an object of block
// b, nested blocks included) by what fill returns; given is the matching
// part of a defaults object, cty.NilVal where it sets nothing.
func fillComputed(b *provider.Block, v cty.Value, fill func(a *provider.Attribute, v, given cty.Value) (cty.Value, bool), given cty.Value) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	attrs := v.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	at := func(name string) cty.Value {
		if given == cty.NilVal || given.IsNull() || !given.Type().IsObjectType() && !given.Type().IsMapType() {
			return cty.NilVal
		}
		if given.Type().IsObjectType() {
			if !given.Type().HasAttribute(name) {
				return cty.NilVal
			}
			return given.GetAttr(name)
		}
		if k := cty.StringVal(name); given.HasIndex(k).True() {
			return given.Index(k)
		}
		return cty.NilVal
	}
	for name, a := range b.Attributes {
		if a.Computed {
			if nv, ok := fill(a, attrs[name], at(name)); ok {
				attrs[name] = nv
			}
		}
	}
	for name, nb := range b.BlockTypes {
		cur, ok := attrs[name]
		if !ok || cur.IsNull() || !cur.IsKnown() {
			continue
		}
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup:
			attrs[name] = fillComputed(&nb.Block, cur, fill, at(name))
		case provider.NestingList, provider.NestingSet:
			var elems []cty.Value
			for it := cur.ElementIterator(); it.Next(); {
				_, e := it.Element()
				elems = append(elems, fillComputed(&nb.Block, e, fill, cty.NilVal))
			}
			if len(elems) > 0 {
				if nb.Nesting == provider.NestingList && cur.Type().IsListType() {
					attrs[name] = cty.ListVal(elems)
				} else if nb.Nesting == provider.NestingSet {
					attrs[name] = cty.SetVal(elems)
				} else {
					attrs[name] = cty.TupleVal(elems)
				}
			}
		}
	}
	return cty.ObjectVal(attrs)
}

const mockChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// generate is the value terraform test's mocks give an attribute of type
// t that nothing sets.
func generate(t cty.Type) cty.Value {
	switch {
	case t == cty.String:
		b := make([]byte, 8)
		for i := range b {
			b[i] = mockChars[rand.IntN(len(mockChars))]
		}
		return cty.StringVal(string(b))
	case t == cty.Number:
		return cty.Zero
	case t == cty.Bool:
		return cty.False
	case t.IsListType():
		return cty.ListValEmpty(t.ElementType())
	case t.IsSetType():
		return cty.SetValEmpty(t.ElementType())
	case t.IsMapType():
		return cty.MapValEmpty(t.ElementType())
	case t.IsObjectType():
		names := make([]string, 0, len(t.AttributeTypes()))
		for n := range t.AttributeTypes() {
			names = append(names, n)
		}
		sort.Strings(names)
		attrs := map[string]cty.Value{}
		for _, n := range names {
			attrs[n] = generate(t.AttributeType(n))
		}
		return cty.ObjectVal(attrs)
	case t.IsTupleType():
		elems := make([]cty.Value, len(t.TupleElementTypes()))
		for i, et := range t.TupleElementTypes() {
			elems[i] = generate(et)
		}
		return cty.TupleVal(elems)
	}
	return cty.NullVal(t)
}

func (p *mockProvider) ImportResourceState(context.Context, provider.ImportRequest) provider.ImportResponse {
	return provider.ImportResponse{Diagnostics: p.refuse("import an object")}
}

func (p *mockProvider) OpenEphemeral(context.Context, provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	return provider.OpenEphemeralResponse{Diagnostics: p.refuse("open an ephemeral resource")}
}

func (p *mockProvider) RenewEphemeral(context.Context, provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	return provider.RenewEphemeralResponse{}
}

func (p *mockProvider) CloseEphemeral(context.Context, provider.CloseEphemeralRequest) hcl.Diagnostics {
	return nil
}

func (p *mockProvider) MoveResourceState(context.Context, provider.MoveRequest) provider.MoveResponse {
	return provider.MoveResponse{TargetState: cty.NilVal, Diagnostics: p.refuse("move an object between types")}
}
