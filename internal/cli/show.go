package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/jsonplan"
	"github.com/tetherhq/tether/internal/planfile"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/ui"
)

// show prints state, or a saved plan, for people or as Terraform's JSON
// representations.
func (e *env) show(ctx context.Context, args []string) int {
	fs := e.flags("show", nil)
	dir := fs.String("C", ".", "configuration folder")
	asJSON := fs.Bool("json", false, "print Terraform's JSON representation")
	noColor := fs.Bool("no-color", false, "print no colours")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if *noColor {
		e.color = false
	}
	if len(pos) > 1 {
		return e.errorf("show takes at most one saved plan file, but was given %q", pos)
	}
	if *dir != "" && *dir != "." {
		if err := os.Chdir(*dir); err != nil {
			return e.errorf("cannot use -C %s: %v", *dir, err)
		}
	}
	b, ok := e.openBackend(ctx, nil)
	if !ok {
		return 1
	}
	defer b.Close()
	keys, err := b.Keys()
	if err != nil {
		return e.errorf("%v", err)
	}
	if len(pos) == 1 {
		return e.showPlan(pos[0], keys, *asJSON)
	}
	ws, ok := e.selectedWorkspace()
	if !ok {
		return 1
	}
	if exists, err := b.StateExists(ctx, ws); err != nil || !exists {
		if err != nil {
			return e.errorf("%v", err)
		}
		// As Terraform, where nothing was applied yet: an empty state.
		if *asJSON {
			return e.printJSON(&tfjson.State{FormatVersion: jsonplan.StateFormatVersion})
		}
		fmt.Fprintln(e.stdout, "No state.")
		return 0
	}
	store, ok := e.openWorkspace(ctx, b, ws, true)
	if !ok {
		return 1
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	if err != nil {
		return e.errorf("%v", err)
	}
	pool, err := e.newPool(ctx, e.stderr)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer pool.close()
	objects, outputs, err := recorded(keys, snap, pool.factory())
	if err != nil {
		return e.errorf("%v", err)
	}
	if !*asJSON {
		return e.showState(objects, outputs)
	}
	doc, err := jsonplan.State(objects, outputs)
	if err != nil {
		return e.errorf("%v", err)
	}
	// As Terraform, a state that records nothing shows no check results.
	if len(objects) > 0 || len(outputs) > 0 {
		results, err := checks.Decode(snap.Checks)
		if err != nil {
			return e.errorf("recorded %v", err)
		}
		if doc.Checks, err = jsonplan.Checks(results); err != nil {
			return e.errorf("%v", err)
		}
	}
	return e.printJSON(doc)
}

func (e *env) printJSON(doc any) int {
	raw, err := json.Marshal(doc)
	if err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintf(e.stdout, "%s\n", raw)
	return 0
}

func (e *env) showPlan(path string, keys *secrets.Keys, asJSON bool) int {
	f, err := planfile.Read(path, keys)
	if err != nil {
		return e.errorf("%v", err)
	}
	if asJSON {
		fmt.Fprintf(e.stdout, "%s\n", f.JSON)
		return 0
	}
	fmt.Fprint(e.stdout, f.Text)
	return 0
}

func (e *env) showState(objects []jsonplan.Object, outputs []jsonplan.Output) int {
	if err := writeState(e.stdout, objects, outputs); err != nil {
		return e.errorf("%v", err)
	}
	return 0
}

// writeState writes what state records as terraform show does.
func writeState(w io.Writer, objects []jsonplan.Object, outputs []jsonplan.Output) error {
	if len(objects) == 0 && len(outputs) == 0 {
		fmt.Fprintln(w, "The state file is empty. No resources are represented.")
		return nil
	}
	for i, obj := range objects {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := ui.RenderObject(w, obj.Addr, obj.Value, obj.Schema); err != nil {
			return err
		}
	}
	if len(outputs) > 0 {
		fmt.Fprintln(w, "\n\nOutputs:")
		fmt.Fprintln(w)
		for _, o := range outputs {
			v := o.Value
			shown := ui.FormatValue(v, 0)
			if o.Sensitive {
				shown = "(sensitive value)"
			}
			fmt.Fprintf(w, "%s = %s\n", o.Name, shown)
		}
	}
	return nil
}

// recorded decodes what state records, with each provider's schema.
func recorded(keys *secrets.Keys, snap *state.Snapshot, providers provider.Factory) ([]jsonplan.Object, []jsonplan.Output, error) {
	var objects []jsonplan.Object
	for _, a := range sortedKeys(snap.Objects) {
		obj := snap.Objects[a]
		rs, err := objectSchema(obj, providers)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, err)
		}
		v, err := engine.RecordedValue(keys, obj, rs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, err)
		}
		objects = append(objects, jsonplan.Object{
			Addr: a, Data: obj.Mode == state.Data, Type: obj.Type, Provider: obj.Provider,
			SchemaVersion: uint64(obj.SchemaVersion), Value: v, Dependencies: obj.Dependencies,
			Tainted: obj.Status == state.Tainted, Schema: rs.Block,
		})
	}
	var outputs []jsonplan.Output
	for _, name := range sortedKeys(snap.Outputs) {
		o := snap.Outputs[name]
		v, err := engine.RecordedOutput(keys, o)
		if err != nil {
			return nil, nil, fmt.Errorf("output %s: %v", name, err)
		}
		outputs = append(outputs, jsonplan.Output{Name: name, Value: v, Sensitive: o.Sensitive})
	}
	return objects, outputs, nil
}

// planJSON is the JSON plan representation of a plan made in a session.
func (e *env) planJSON(ctx context.Context, s *session, planned *engine.Planned, made time.Time) (*jsonplan.Plan, error) {
	snap, err := s.store.Load(ctx)
	if err != nil {
		return nil, err
	}
	objects, outputs, err := recorded(s.engine.Keys, snap, s.pool.factory())
	if err != nil {
		return nil, err
	}
	doc, err := jsonplan.FromPlan(planned.Plan, jsonplan.Prior{Objects: objects, Outputs: outputs, Variables: planned.Variables()}, made)
	if err != nil {
		return nil, err
	}
	factory := s.pool.factory()
	if doc.Configuration, err = jsonplan.FromConfig(s.cfg, factory.Schema); err != nil {
		return nil, fmt.Errorf("writing the plan's configuration: %w", err)
	}
	return doc, nil
}
