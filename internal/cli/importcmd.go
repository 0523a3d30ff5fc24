package cli

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
)

// importCmd is `tether import ADDRESS ID`: it adopts one existing object
// into state at a resource instance the configuration declares, as
// `terraform import` does, and changes nothing else. Import blocks do the
// same as part of a plan.
func (e *env) importCmd(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("import", &c)
	e.lockFlag(fs, &c)
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) != 2 {
		return e.errorf("import takes a resource instance address and the id of the object to import, e.g. tether import tether_file.a out/a.txt")
	}
	target, id := pos[0], pos[1]
	ia, err := addr.ParseInstance(target)
	if err != nil {
		return e.errorf("%q is not a resource instance address: %v", target, err)
	}
	s, ok := e.open(ctx, &c, "import")
	if !ok {
		return 1
	}
	defer s.close()
	static := ia.Static()
	declared := false
	for _, n := range s.cfg.Nodes {
		if n.Addr == static && n.Kind == config.Resource {
			declared = true
		}
	}
	if !declared {
		return e.errorf("configuration for import target does not exist: the configuration declares no resource %s. Add a resource block for it, then import", static)
	}
	snap, err := s.store.Load(ctx)
	if err != nil {
		return e.errorf("%v", err)
	}
	if _, ok := snap.Objects[target]; ok {
		return e.errorf("resource already managed by Tether: %s is in state already. Remove it with tether state rm first to import another object there", target)
	}
	imp := config.Import{To: static, Eval: func(config.Scope) ([]config.ImportTarget, hcl.Diagnostics) {
		return []config.ImportTarget{{Addr: target, ID: id}}, nil
	}}
	fmt.Fprintf(e.stdout, "%s: Importing from ID %q...\n", target, id)
	planned, diags := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{Imports: []config.Import{imp}, SkipRefresh: !c.refresh})
	e.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	n, diags := s.engine.RecordImports(ctx, planned)
	e.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	if n == 0 {
		return e.errorf("nothing was imported at %s: it is not an instance of %s in this configuration (check count or for_each)", target, static)
	}
	fmt.Fprintf(e.stdout, "%s: Import prepared!\n\nImport successful!\n\nThe resources that were imported are shown above. These resources are now in\nyour Tether state and will henceforth be managed by Tether.\n", target)
	return 0
}
