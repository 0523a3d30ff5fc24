package jsonplan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// The format versions Terraform 1.11 writes.
const (
	StateFormatVersion = "1.0"
	PlanFormatVersion  = "1.2"
)

// TerraformVersion is what the representations give as the version of the
// tool that wrote them: the Terraform release whose formats they follow.
const TerraformVersion = "1.11.0"

// Object is one recorded resource instance.
type Object struct {
	Addr          string
	Data          bool
	Type          string
	Provider      string // provider configuration address, Terraform's form
	SchemaVersion uint64
	// Value is the object, with marks.Sensitive on what is sensitive.
	Value        cty.Value
	Dependencies []string
	Tainted      bool
	// Schema is the block of the type's schema, for showing the object
	// to people; the JSON representations do not use it.
	Schema *provider.Block
}

// Output is one root module output.
type Output struct {
	Name      string
	Value     cty.Value // marked
	Sensitive bool
}

// State is the JSON state representation of objects and outputs.
func State(objects []Object, outputs []Output) (*tfjson.State, error) {
	vals, err := stateValues(objects, outputs)
	if err != nil {
		return nil, err
	}
	return &tfjson.State{FormatVersion: StateFormatVersion, TerraformVersion: TerraformVersion, Values: vals}, nil
}

func stateValues(objects []Object, outputs []Output) (*tfjson.StateValues, error) {
	vals := &tfjson.StateValues{RootModule: &tfjson.StateModule{}}
	if len(outputs) > 0 {
		vals.Outputs = map[string]*tfjson.StateOutput{}
	}
	for _, o := range outputs {
		so, err := stateOutput(o.Value, o.Sensitive)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", o.Name, err)
		}
		vals.Outputs[o.Name] = so
	}
	sort.Slice(objects, func(i, j int) bool { return addr.Less(objects[i].Addr, objects[j].Addr) })
	for _, obj := range objects {
		r, mod, err := stateResource(obj)
		if err != nil {
			return nil, err
		}
		m := module(vals.RootModule, mod)
		m.Resources = append(m.Resources, r)
	}
	return vals, nil
}

func stateOutput(v cty.Value, sensitive bool) (*tfjson.StateOutput, error) {
	u := unmark(v)
	so := &tfjson.StateOutput{Sensitive: sensitive || marks.ContainsSensitive(v), Type: u.Type()}
	if !u.IsWhollyKnown() {
		so.Type = cty.NilType // as Terraform: neither type nor value
		return so, nil
	}
	raw, err := ctyjson.Marshal(u, u.Type())
	if err != nil {
		return nil, err
	}
	so.Value = json.RawMessage(raw)
	return so, nil
}

// module finds or adds the child module at path (a module instance
// address) below root.
func module(root *tfjson.StateModule, path []addr.Step) *tfjson.StateModule {
	m := root
	for i := range path {
		a := addr.ModulePath(path[:i+1])
		var next *tfjson.StateModule
		for _, c := range m.ChildModules {
			if c.Address == a {
				next = c
			}
		}
		if next == nil {
			next = &tfjson.StateModule{Address: a}
			m.ChildModules = append(m.ChildModules, next)
		}
		m = next
	}
	return m
}

func stateResource(obj Object) (*tfjson.StateResource, []addr.Step, error) {
	id, err := identify(obj.Addr)
	if err != nil {
		return nil, nil, err
	}
	r := &tfjson.StateResource{
		Address: obj.Addr, Mode: id.mode, Type: obj.Type, Name: id.name, Index: id.index,
		ProviderName: providerName(obj.Provider), SchemaVersion: obj.SchemaVersion,
		DependsOn: obj.Dependencies, Tainted: obj.Tainted,
	}
	if obj.Data {
		r.Mode = tfjson.DataResourceMode
	}
	values, sens, err := knownValues(obj.Value)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", obj.Addr, err)
	}
	if m, ok := values.(map[string]any); ok {
		r.AttributeValues = m
	}
	r.SensitiveValues, _ = json.Marshal(sens)
	return r, id.module, nil
}

// identity is an instance address taken apart as the JSON formats give it.
type identity struct {
	module []addr.Step
	mode   tfjson.ResourceMode
	name   string
	index  any
}

func identify(a string) (identity, error) {
	ia, err := addr.ParseInstance(a)
	if err != nil {
		return identity{}, err
	}
	id := identity{module: ia.Module, mode: tfjson.ManagedResourceMode}
	parts := addr.Split(ia.Resource)
	if parts[0] == "data" {
		id.mode = tfjson.DataResourceMode
		parts = parts[1:]
	}
	if len(parts) == 2 {
		id.name = parts[1]
	}
	if ia.Key != cty.NilVal && !ia.Key.IsNull() {
		if ia.Key.Type() == cty.Number {
			i, _ := ia.Key.AsBigFloat().Int64()
			id.index = i
		} else {
			id.index = ia.Key.AsString()
		}
	}
	return id, nil
}

// providerName is the source address of a provider configuration address:
// provider["registry.terraform.io/hashicorp/aws"].west gives
// registry.terraform.io/hashicorp/aws.
func providerName(config string) string {
	pc, err := addr.ParseProviderConfig(config)
	if err != nil {
		return config
	}
	return pc.Source.String()
}

func unmark(v cty.Value) cty.Value {
	u, _ := v.UnmarkDeep()
	return u
}

// knownValues is v as JSON with unknown values left out, as planned_values
// and state give objects, and the shape of what in it is sensitive.
func knownValues(v cty.Value) (any, any, error) {
	val, err := jsonValue(unmark(v), false)
	if err != nil {
		return nil, nil, err
	}
	return val, sensitiveShape(v), nil
}

// jsonValue encodes a value; unknown values become null, or are left out
// of objects and maps when omitUnknown is set.
func jsonValue(v cty.Value, nullUnknown bool) (any, error) {
	if v == cty.NilVal {
		return nil, nil
	}
	if !v.IsKnown() || v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		return json.Number(v.AsBigFloat().Text('f', -1)), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			j, err := jsonValue(e, nullUnknown)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if !e.IsKnown() && !nullUnknown {
				continue
			}
			j, err := jsonValue(e, nullUnknown)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = j
		}
		return out, nil
	case ty == cty.DynamicPseudoType:
		return nil, nil
	}
	// A capsule or other type with no JSON form.
	raw, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

// sensitiveShape is Terraform's sensitive_values: true where a value is
// sensitive; lists as arrays of their elements' shapes; objects and maps
// with only their sensitive or non-empty members; false elsewhere.
func sensitiveShape(v cty.Value) any {
	return shape(v, func(v cty.Value) bool { return v.HasMark(marks.Sensitive) }, false)
}

// unknownShape is Terraform's after_unknown, the same shape for what is
// known only after apply.
func unknownShape(v cty.Value) any {
	return shape(unmark(v), func(v cty.Value) bool { return !v.IsKnown() }, true)
}

func shape(v cty.Value, is func(cty.Value) bool, unknownVals bool) any {
	if v == cty.NilVal {
		return false
	}
	if is(v) {
		return true
	}
	if unknownVals {
		if v.IsNull() {
			return false
		}
	} else {
		v, _ = v.Unmark()
		if v.IsNull() {
			return false
		}
		if !v.IsKnown() {
			// Nothing is known of what an unknown collection holds: it
			// is an empty one here, as in Terraform's after_sensitive.
			switch ty := v.Type(); {
			case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
				return []any{}
			case ty.IsMapType() || ty.IsObjectType():
				return map[string]any{}
			}
			return false
		}
	}
	ty := v.Type()
	switch {
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, shape(e, is, unknownVals))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if s := shape(e, is, unknownVals); s != false {
				out[k.AsString()] = s
			}
		}
		return out
	}
	return false
}

// Canonical encodes a representation as compact JSON with sorted keys and
// numbers as written, so that equal plans give equal bytes.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}
