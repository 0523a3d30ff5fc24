package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// importTargets evaluates the imports that target node n in module
// instance mi (nil for none), by instance address. Import blocks are the
// root module's: they are evaluated there, and name instances in any
// module instance; one naming a module instance that does not exist is an
// error.
func (p *Planned) importTargets(n *node, mi *modInstance) (map[string]config.ImportTarget, hcl.Diagnostics) {
	// Evaluated once for all module instances of the node, when the
	// first is planned (planResources goes through them in order).
	if n.imports != nil && mi != nil && mi != n.per[0].mi {
		return maps.Clone(n.imports[mi.str]), nil
	}
	if len(p.cfg.Imports) == 0 && len(p.opts.Imports) == 0 {
		return nil, nil // none to evaluate: no map to make for each node
	}
	n.imports = map[string]map[string]config.ImportTarget{}
	var diags hcl.Diagnostics
	for _, imp := range append(p.cfg.Imports, p.opts.Imports...) {
		if imp.To != n.addr || imp.Eval == nil {
			continue
		}
		// An import block's errors are its own, at the block, not the
		// resource's.
		targets, d := imp.Eval(p.scopeAt(p.mods[""].instances[0]))
		diags = append(diags, d...)
		for _, t := range targets {
			m := moduleOf(t.Addr)
			if !slices.ContainsFunc(n.per, func(ni *nodeInst) bool { return ni.mi.str == m }) {
				diags = append(diags, importTargetMissing(t))
				continue
			}
			in := n.imports[m]
			if in == nil {
				in = map[string]config.ImportTarget{}
				n.imports[m] = in
			}
			if prev, ok := in[t.Addr]; ok && prev.ID != t.ID {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate import target",
					Detail: fmt.Sprintf("%s is imported twice, with the ids %q and %q.", t.Addr, prev.ID, t.ID), Subject: t.Range.Ptr()})
			}
			in[t.Addr] = t
		}
	}
	if mi == nil {
		return nil, diags
	}
	return maps.Clone(n.imports[mi.str]), diags
}

// importTargetMissing is Terraform's error for an import of an instance
// that count or for_each, of the resource or of a module call, does not
// make.
func importTargetMissing(t config.ImportTarget) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Configuration for import target does not exist",
		Detail:  fmt.Sprintf("The configuration for the given import %s does not exist. All target instances must have an associated configuration to be imported.", t.Addr),
		Subject: t.Range.Ptr()}
}

// moduleOf is the module instance of an instance address, "" for the
// root module's.
func moduleOf(instance string) string {
	ia, err := addr.ParseInstance(instance)
	if err != nil {
		return ""
	}
	return addr.ModulePath(ia.Module)
}

// importObject reads the existing object an import names, as the prior
// object of the instance: the provider imports it by its id, then reads it
// back, as Terraform does.
func (e *Engine) importObject(ctx context.Context, n *node, in *instance) hcl.Diagnostics {
	resp := in.provider(n).ImportResourceState(ctx, provider.ImportRequest{TypeName: n.cfg.Type, ID: in.importID})
	if resp.Diagnostics.HasErrors() {
		return attribute(in.addr, n.cfg, resp.Diagnostics)
	}
	var found *provider.ImportedResource
	for i := range resp.Imported {
		if resp.Imported[i].TypeName == n.cfg.Type {
			found = &resp.Imported[i]
			break
		}
	}
	if found == nil {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Import returned no object",
			fmt.Sprintf("The provider imported no %s for the id %q.", n.cfg.Type, in.importID))}
	}
	read := in.provider(n).ReadResource(ctx, provider.ReadRequest{TypeName: n.cfg.Type, PriorState: found.State, Private: found.Private})
	if read.Diagnostics.HasErrors() {
		return attribute(in.addr, n.cfg, read.Diagnostics)
	}
	if read.NewState.IsNull() {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot import non-existent remote object",
			fmt.Sprintf("The provider found no %s with the id %q to import. Check the id, and that the object exists.", n.cfg.Type, in.importID))}
	}
	in.prior, in.priorPrivate = refreshed(n, in, read.NewState), read.Private
	return append(resp.Diagnostics, read.Diagnostics...)
}
