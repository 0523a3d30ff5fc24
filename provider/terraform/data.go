package terraform

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/provider"
)

// terraform_data: a value kept in state. Its rules are Terraform 1.11's:
// a create or a changed triggers_replace (which replaces the object) gives
// a new id and an output known only after apply, unless input is null; a
// changed input alone updates output in place.

func dataSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "Keeps a value in state: output follows input, and a change of triggers_replace replaces the object.",
		Attributes: map[string]*provider.Attribute{
			"input":            {Type: cty.DynamicPseudoType, Optional: true, Description: "A value to keep; output follows it."},
			"output":           {Type: cty.DynamicPseudoType, Computed: true, Description: "input, as of the last apply."},
			"triggers_replace": {Type: cty.DynamicPseudoType, Optional: true, Description: "A value whose change replaces the object."},
			"id":               {Type: cty.String, Computed: true, Description: "A unique id, chosen when the object is created."},
		},
	}}
}

// validateData refuses the computed attributes in the configuration.
func validateData(config cty.Value) hcl.Diagnostics {
	if config.IsNull() || !config.Type().IsObjectType() {
		return nil
	}
	var diags hcl.Diagnostics
	for _, name := range []string{"id", "output"} {
		if config.Type().HasAttribute(name) && !config.GetAttr(name).IsNull() {
			diags = append(diags, attrError(name, "Invalid attribute value", fmt.Sprintf("%q is read-only: terraform_data computes it.", name)))
		}
	}
	return diags
}

// unknownOutput is the output of a new object or of a changed input: null
// when input is, else unknown of input's type.
func unknownOutput(input cty.Value) cty.Value {
	if input.IsNull() {
		return input
	}
	return cty.UnknownVal(input.Type())
}

func planData(req provider.PlanRequest) provider.PlanResponse {
	proposed := req.ProposedNewState
	if proposed.IsNull() {
		return provider.PlanResponse{PlannedState: proposed}
	}
	planned := proposed.AsValueMap()
	input := proposed.GetAttr("input")
	trigger := proposed.GetAttr("triggers_replace")
	var replace []cty.Path
	switch prior := req.PriorState; {
	case prior.IsNull():
		planned["id"] = cty.UnknownVal(cty.String).RefineNotNull()
		planned["output"] = unknownOutput(input)
	case !prior.GetAttr("triggers_replace").RawEquals(trigger):
		replace = append(replace, cty.GetAttrPath("triggers_replace"))
		planned["id"] = cty.UnknownVal(cty.String).RefineNotNull()
		planned["output"] = unknownOutput(input)
	default:
		// The computed values stay what they were (as Terraform's
		// proposal has them), but for output when input changed.
		planned["id"] = prior.GetAttr("id")
		planned["output"] = prior.GetAttr("output")
		if !prior.GetAttr("input").RawEquals(input) {
			planned["output"] = cty.UnknownVal(input.Type())
		}
	}
	return provider.PlanResponse{PlannedState: cty.ObjectVal(planned), RequiresReplace: replace}
}

func applyData(req provider.ApplyRequest) provider.ApplyResponse {
	planned := req.PlannedState
	if planned.IsNull() {
		return provider.ApplyResponse{NewState: planned}
	}
	state := planned.AsValueMap()
	if !planned.GetAttr("output").IsKnown() {
		state["output"] = planned.GetAttr("input")
	}
	if !planned.GetAttr("id").IsKnown() {
		id, err := newID()
		if err != nil {
			return provider.ApplyResponse{NewState: cty.NullVal(planned.Type()), Diagnostics: hcl.Diagnostics{
				attrError("id", "Error generating id", diagnostic.Failed("reading random bytes", err))}}
		}
		state["id"] = cty.StringVal(id)
	}
	return provider.ApplyResponse{NewState: cty.ObjectVal(state)}
}

// newID is a new object's id: 16 random bytes in a UUID's layout, as
// Terraform writes them (with no version bits).
func newID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// importedData is the object an import gives: the id alone, since nothing
// else exists to read it from.
func importedData(id string) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"id":               cty.StringVal(id),
		"input":            cty.NullVal(cty.DynamicPseudoType),
		"output":           cty.NullVal(cty.DynamicPseudoType),
		"triggers_replace": cty.NullVal(cty.DynamicPseudoType),
	})
}

// moveToData takes hashicorp/null's null_resource over (its triggers
// become triggers_replace), the one move Terraform's provider supports.
func moveToData(req provider.MoveRequest) provider.MoveResponse {
	fail := func(summary, detail string) provider.MoveResponse {
		return provider.MoveResponse{TargetState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: hcl.Diagnostics{diagnostic.Error(summary, detail)}}
	}
	// Any host: a mirror may serve hashicorp/null under its own.
	if !strings.HasSuffix(req.SourceProviderAddress, "hashicorp/null") {
		return fail("Unsupported source provider for move operation",
			fmt.Sprintf("Only hashicorp/null's null_resource can move to terraform_data; %s of %s cannot.", req.SourceTypeName, req.SourceProviderAddress))
	}
	if req.SourceTypeName != "null_resource" {
		return fail("Unsupported source resource type for move operation",
			fmt.Sprintf("Only hashicorp/null's null_resource can move to terraform_data; %s cannot.", req.SourceTypeName))
	}
	nullType := cty.Object(map[string]cty.Type{"id": cty.String, "triggers": cty.Map(cty.String)})
	v, err := ctyjson.Unmarshal(req.SourceStateJSON, nullType)
	if err != nil {
		return provider.MoveResponse{TargetState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: hcl.Diagnostics{
			diagnostic.Wrap("Invalid null_resource object", "reading the object to move", err)}}
	}
	// A map of triggers becomes an object, as the configuration's
	// { ... } is one: otherwise the next plan would see a change of type
	// and replace the object.
	triggers := cty.NullVal(cty.DynamicPseudoType)
	if t := v.GetAttr("triggers"); !t.IsNull() {
		triggers = cty.EmptyObjectVal
		if t.LengthInt() > 0 {
			triggers = cty.ObjectVal(t.AsValueMap())
		}
	}
	obj := importedData("")
	m := obj.AsValueMap()
	m["id"], m["triggers_replace"] = v.GetAttr("id"), triggers
	out, err := convert.Convert(cty.ObjectVal(m), dataSchema().Block.ImpliedType())
	if err != nil {
		return fail("Invalid null_resource object", err.Error())
	}
	return provider.MoveResponse{TargetState: out}
}
