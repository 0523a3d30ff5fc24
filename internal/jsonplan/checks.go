package jsonplan

import (
	"fmt"
	"sort"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
)

// Checks is the `checks` of a state or plan representation: each
// configuration object's results with its instances', ordered as
// Terraform orders them (by the address shown, problems by message).
// It is nil when there are no results, and Terraform then writes no
// `checks` at all.
func Checks(rs []checks.Result) ([]tfjson.CheckResultStatic, error) {
	var out []tfjson.CheckResultStatic
	for _, r := range rs {
		a, err := staticCheckAddr(r)
		if err != nil {
			return nil, err
		}
		s := tfjson.CheckResultStatic{Address: a, Status: tfjson.CheckStatus(r.Status)}
		for _, o := range r.Objects {
			d, err := dynamicCheckAddr(o.Addr)
			if err != nil {
				return nil, fmt.Errorf("check results of %s: %w", r.ConfigAddr, err)
			}
			inst := tfjson.CheckResultDynamic{Address: d, Status: tfjson.CheckStatus(o.Status)}
			msgs := append([]string(nil), o.FailureMessages...)
			sort.Strings(msgs)
			for _, m := range msgs {
				inst.Problems = append(inst.Problems, tfjson.CheckResultProblem{Message: m})
			}
			s.Instances = append(s.Instances, inst)
		}
		sort.Slice(s.Instances, func(i, j int) bool {
			return s.Instances[i].Address.ToDisplay < s.Instances[j].Address.ToDisplay
		})
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.ToDisplay < out[j].Address.ToDisplay })
	return out, nil
}

// staticCheckAddr describes a configuration object's address as
// Terraform's jsonchecks does.
func staticCheckAddr(r checks.Result) (tfjson.CheckStaticAddress, error) {
	a := tfjson.CheckStaticAddress{ToDisplay: r.ConfigAddr}
	ia, err := addr.ParseInstance(r.ConfigAddr)
	if err != nil || ia.Key != cty.NilVal || ia.Resource == "" {
		return a, fmt.Errorf("check results: %q is not the address of a %s", r.ConfigAddr, r.Kind)
	}
	a.Module = addr.ModulePath(ia.Module)
	for _, s := range ia.Module {
		if s.Key != cty.NilVal {
			return a, fmt.Errorf("check results: %q is not the address of a %s", r.ConfigAddr, r.Kind)
		}
	}
	first, name, _ := strings.Cut(ia.Resource, ".")
	switch r.Kind {
	case checks.Resource:
		a.Kind, a.Mode, a.Type, a.Name = tfjson.CheckKindResource, tfjson.ManagedResourceMode, first, name
		if first == "data" {
			a.Mode = tfjson.DataResourceMode
			a.Type, a.Name, _ = strings.Cut(name, ".")
		}
		return a, nil
	case checks.Output:
		a.Kind, a.Name = tfjson.CheckKindOutputValue, name
	case checks.Check:
		a.Kind, a.Name = tfjson.CheckKindCheckBlock, name
	case checks.Variable:
		// terraform-json has no constant for it yet.
		a.Kind, a.Name = tfjson.CheckKind("var"), name
	}
	if want := map[checks.Kind]string{checks.Output: "output", checks.Check: "check", checks.Variable: "var"}[r.Kind]; first != want {
		return a, fmt.Errorf("check results: %q is not the address of a %s", r.ConfigAddr, r.Kind)
	}
	return a, nil
}

// dynamicCheckAddr describes an instance's address: its module instance
// and, for a resource instance, its key.
func dynamicCheckAddr(s string) (tfjson.CheckDynamicAddress, error) {
	d := tfjson.CheckDynamicAddress{ToDisplay: s}
	ia, err := addr.ParseInstance(s)
	if err != nil {
		return d, err
	}
	d.Module = addr.ModulePath(ia.Module)
	if ia.Key != cty.NilVal && !ia.Key.IsNull() {
		if ia.Key.Type() == cty.Number {
			// A count index: always a whole number.
			d.InstanceKey, _ = ia.Key.AsBigFloat().Int64()
		} else {
			d.InstanceKey = ia.Key.AsString()
		}
	}
	return d, nil
}
