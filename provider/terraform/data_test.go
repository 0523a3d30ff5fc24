package terraform

import (
	"context"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

func dataVal(input, output, trigger, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"input": input, "output": output, "triggers_replace": trigger, "id": id})
}

var (
	nullDyn   = cty.NullVal(cty.DynamicPseudoType)
	unknownID = cty.UnknownVal(cty.String).RefineNotNull()
)

// TestPlanData checks terraform_data's plan rules, Terraform 1.11's: what
// is new, what is kept, and when the object is replaced.
func TestPlanData(t *testing.T) {
	prior := dataVal(cty.StringVal("a"), cty.StringVal("a"), cty.StringVal("1"), cty.StringVal("id-1"))
	cases := []struct {
		name            string
		prior, proposed cty.Value
		want            cty.Value
		replace         bool
	}{
		{"create", cty.NullVal(prior.Type()),
			dataVal(cty.StringVal("a"), nullDyn, nullDyn, nullDyn),
			dataVal(cty.StringVal("a"), cty.UnknownVal(cty.String), nullDyn, unknownID), false},
		{"create without input", cty.NullVal(prior.Type()),
			dataVal(nullDyn, nullDyn, nullDyn, nullDyn),
			dataVal(nullDyn, nullDyn, nullDyn, unknownID), false},
		{"no change", prior,
			dataVal(cty.StringVal("a"), cty.StringVal("a"), cty.StringVal("1"), cty.StringVal("id-1")),
			prior, false},
		{"input changed: output follows, id kept", prior,
			dataVal(cty.NumberIntVal(2), cty.StringVal("a"), cty.StringVal("1"), cty.StringVal("id-1")),
			dataVal(cty.NumberIntVal(2), cty.UnknownVal(cty.Number), cty.StringVal("1"), cty.StringVal("id-1")), false},
		{"trigger changed: replaced", prior,
			dataVal(cty.StringVal("a"), cty.StringVal("a"), cty.StringVal("2"), cty.StringVal("id-1")),
			dataVal(cty.StringVal("a"), cty.UnknownVal(cty.String), cty.StringVal("2"), unknownID), true},
		{"trigger type changed: replaced", prior,
			dataVal(cty.StringVal("a"), cty.StringVal("a"), cty.NumberIntVal(1), cty.StringVal("id-1")),
			dataVal(cty.StringVal("a"), cty.UnknownVal(cty.String), cty.NumberIntVal(1), unknownID), true},
	}
	p := New()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := p.PlanResourceChange(context.Background(), provider.PlanRequest{
				TypeName: dataType, PriorState: tc.prior, ProposedNewState: tc.proposed, Config: tc.proposed,
			})
			if resp.Diagnostics.HasErrors() {
				t.Fatal(resp.Diagnostics)
			}
			if !resp.PlannedState.RawEquals(tc.want) {
				t.Errorf("planned %#v, want %#v", resp.PlannedState, tc.want)
			}
			if got := len(resp.RequiresReplace) > 0; got != tc.replace {
				t.Errorf("replace = %v, want %v", got, tc.replace)
			}
		})
	}
}

// TestApplyData checks that apply fills what the plan left unknown.
func TestApplyData(t *testing.T) {
	planned := dataVal(cty.StringVal("a"), cty.UnknownVal(cty.String), nullDyn, unknownID)
	resp := New().ApplyResourceChange(context.Background(), provider.ApplyRequest{TypeName: dataType, PriorState: cty.NullVal(planned.Type()), PlannedState: planned})
	if resp.Diagnostics.HasErrors() {
		t.Fatal(resp.Diagnostics)
	}
	if out := resp.NewState.GetAttr("output"); !out.RawEquals(cty.StringVal("a")) {
		t.Errorf("output = %#v, want the input", out)
	}
	if id := resp.NewState.GetAttr("id"); !id.IsKnown() || len(id.AsString()) != 36 {
		t.Errorf("id = %#v, want a UUID", id)
	}
}

func TestValidateImportMoveData(t *testing.T) {
	p := New()
	diags := p.ValidateResourceConfig(dataType, dataVal(nullDyn, cty.StringVal("x"), nullDyn, cty.StringVal("y")))
	if len(diags) != 2 || !strings.Contains(diags[0].Detail+diags[1].Detail, `"output" is read-only`) {
		t.Errorf("setting id and output: %v", diags)
	}
	imp := p.ImportResourceState(context.Background(), provider.ImportRequest{TypeName: dataType, ID: "x1"})
	if imp.Diagnostics.HasErrors() || len(imp.Imported) != 1 || !imp.Imported[0].State.GetAttr("id").RawEquals(cty.StringVal("x1")) {
		t.Errorf("import: %#v %v", imp.Imported, imp.Diagnostics)
	}
	mv := p.MoveResourceState(context.Background(), provider.MoveRequest{
		SourceProviderAddress: "registry.terraform.io/hashicorp/null", SourceTypeName: "null_resource",
		SourceStateJSON: []byte(`{"id":"n1","triggers":{"k":"v"}}`), TargetTypeName: dataType,
	})
	want := dataVal(nullDyn, nullDyn, cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v")}), cty.StringVal("n1"))
	if mv.Diagnostics.HasErrors() || !mv.TargetState.RawEquals(want) {
		t.Errorf("move from null_resource: %#v %v", mv.TargetState, mv.Diagnostics)
	}
	mv = p.MoveResourceState(context.Background(), provider.MoveRequest{
		SourceProviderAddress: "registry.terraform.io/hashicorp/random", SourceTypeName: "random_id", TargetTypeName: dataType,
	})
	if !mv.Diagnostics.HasErrors() {
		t.Error("a move from random_id was accepted")
	}
}
