package tftest

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// Override is an override_resource, override_data or override_module
// block: the object it targets is not planned, applied or read through
// its provider; its computed attributes take Values, or generated values,
// as a mock's do. An override_module's module is not planned at all: its
// outputs are Values' attributes, null for those it does not set.
type Override struct {
	// Target is the address as written: aws_s3_bucket.b (every
	// instance), aws_s3_bucket.b[0], module.m.data.aws_ami.x, module.m.
	Target       string
	Data, Module bool
	Values       cty.Value
	// UseForPlan is override_during = plan: a created object's computed
	// attributes take their values while planning already, not only when
	// applied.
	UseForPlan bool
	Range      hcl.Range
}

// overrideKinds are the override blocks: what each targets, the name of
// its values attribute, and the error for a target of another kind.
var overrideKinds = map[string]struct{ kind, values, what string }{
	"override_resource": {"resource", "values", "resources from override_resource"},
	"override_data":     {"data", "values", "data sources from override_data"},
	"override_module":   {"module", "outputs", "modules from override_module"},
}

// parseOverride decodes an override block; plan is the override_during
// it takes when it sets none (its mock_provider's, in one).
func parseOverride(b *hcl.Block, plan bool) (*Override, hcl.Diagnostics) {
	k := overrideKinds[b.Type]
	o := &Override{Data: k.kind == "data", Module: k.kind == "module", Values: cty.EmptyObjectVal, Range: b.DefRange}
	content, diags := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "target"}, {Name: k.values}, {Name: "override_during"},
	}})
	o.UseForPlan, diags = overrideDuring(content, plan, diags)
	a, ok := content.Attributes["target"]
	if !ok {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing target attribute",
			Detail: fmt.Sprintf("%s blocks must specify a target address.", b.Type), Subject: b.DefRange.Ptr()})
	}
	t, d := hcl.AbsTraversalForExpr(a.Expr)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, diags
	}
	o.Target = traversalString(t)
	if targetKind(t) != k.kind {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid override target",
			Detail: fmt.Sprintf("You can only target %s blocks, not %s.", k.what, o.Target), Subject: a.Expr.Range().Ptr()})
	}
	if v, ok := content.Attributes[k.values]; ok {
		val, d := v.Expr.Value(nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			return nil, diags
		}
		if !val.Type().IsObjectType() {
			article := map[bool]string{false: "a", true: "an"}[o.Module]
			return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Invalid %s attribute", k.values),
				Detail: fmt.Sprintf("%s blocks must specify %s %s attribute that is an object.", b.Type, article, k.values), Subject: v.Expr.Range().Ptr()})
		}
		o.Values = val
	}
	return o, diags
}

// overrideDuring is the override_during argument of content: whether
// the values are used while planning; plan when it is not set.
func overrideDuring(content *hcl.BodyContent, plan bool, diags hcl.Diagnostics) (bool, hcl.Diagnostics) {
	a, ok := content.Attributes["override_during"]
	if !ok {
		return plan, diags
	}
	switch hcl.ExprAsKeyword(a.Expr) {
	case "plan":
		return true, diags
	case "apply":
		return false, diags
	}
	return plan, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid override_during value",
		Detail: "The override_during attribute must be a value of plan or apply.", Subject: a.Range.Ptr()})
}

// targetKind is what traversal t addresses: "module", "data" or
// "resource" ("" when it is none of them).
func targetKind(t hcl.Traversal) string {
	names := []string{}
	for _, s := range t {
		switch s := s.(type) {
		case hcl.TraverseRoot:
			names = append(names, s.Name)
		case hcl.TraverseAttr:
			names = append(names, s.Name)
		}
	}
	for len(names) >= 2 && names[0] == "module" {
		names = names[2:]
	}
	switch {
	case len(names) == 0:
		return "module"
	case names[0] == "data" && len(names) == 3:
		return "data"
	case names[0] != "data" && len(names) == 2:
		return "resource"
	}
	return ""
}

// overrideFor is the first of overrides (the most specific first) that
// targets the object at addr, nil when none: one naming the instance, or
// its resource (addr without its last key).
func overrideFor(overrides []*Override, addr string, data bool) *Override {
	whole := addr
	if strings.HasSuffix(addr, "]") {
		if i := strings.LastIndex(addr, "["); i > strings.LastIndex(addr, ".") {
			whole = addr[:i]
		}
	}
	for _, want := range []string{addr, whole} {
		for _, o := range overrides {
			if !o.Module && o.Data == data && o.Target == want {
				return o
			}
		}
	}
	return nil
}

// overriding is a provider whose calls for the objects its overrides
// target are served as a mock serves them, never reaching the provider;
// it learns the object of each call from provider.ObjectFrom.
type overriding struct {
	provider.Provider
	overrides []*Override
}

// NewOverriding is p with overrides (the most specific first) served in
// its place; p itself when there are none.
func NewOverriding(p provider.Provider, overrides []*Override) provider.Provider {
	if len(overrides) == 0 {
		return p
	}
	return &overriding{Provider: p, overrides: overrides}
}

// mock is the mock serving the object of ctx, nil when it is not
// overridden.
func (p *overriding) mock(ctx context.Context, typ string, data bool) (*mockProvider, hcl.Diagnostics) {
	o := overrideFor(p.overrides, provider.ObjectFrom(ctx), data)
	if o == nil {
		return nil, nil
	}
	s, diags := p.Provider.GetSchema()
	if diags.HasErrors() {
		return nil, diags
	}
	m := &Mock{Name: o.Target, Resources: map[string]Defaults{}, Data: map[string]Defaults{}, DeclRange: o.Range}
	m.Resources[typ] = Defaults{Value: o.Values, Range: o.Range, UseForPlan: o.UseForPlan}
	m.Data[typ] = m.Resources[typ]
	return &mockProvider{schema: s, mock: m, what: "override of " + o.Target}, nil
}

func (p *overriding) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	m, diags := p.mock(ctx, req.TypeName, false)
	if m == nil && diags == nil {
		return p.Provider.ReadResource(ctx, req)
	}
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: diags}
}

func (p *overriding) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	m, diags := p.mock(ctx, req.TypeName, false)
	switch {
	case diags.HasErrors():
		return provider.PlanResponse{Diagnostics: diags}
	case m == nil:
		return p.Provider.PlanResourceChange(ctx, req)
	}
	return m.PlanResourceChange(ctx, req)
}

func (p *overriding) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	m, diags := p.mock(ctx, req.TypeName, false)
	switch {
	case diags.HasErrors():
		return provider.ApplyResponse{NewState: cty.NullVal(req.PlannedState.Type()), Diagnostics: diags}
	case m == nil:
		return p.Provider.ApplyResourceChange(ctx, req)
	}
	return m.ApplyResourceChange(ctx, req)
}

func (p *overriding) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	m, diags := p.mock(ctx, req.TypeName, true)
	switch {
	case diags.HasErrors():
		return provider.ReadDataResponse{Diagnostics: diags}
	case m == nil:
		return p.Provider.ReadDataSource(ctx, req)
	}
	return m.ReadDataSource(ctx, req)
}

// ModuleOverrides are the override_module blocks of overrides (the most
// specific first) as engine.PlanOptions takes them: each target's
// outputs object, the first block's for a target.
func ModuleOverrides(overrides []*Override) map[string]cty.Value {
	var out map[string]cty.Value
	for _, o := range overrides {
		if !o.Module {
			continue
		}
		if out == nil {
			out = map[string]cty.Value{}
		}
		if _, ok := out[o.Target]; !ok {
			out[o.Target] = o.Values
		}
	}
	return out
}
