package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"

	"github.com/tetherhq/tether/internal/provider"
)

// openState opens the state of the configuration folder for reading. It
// refuses to create state where there is none.
func (e *env) openState(dir string) (*state.SQLite, bool) {
	if dir != "" && dir != "." {
		if err := os.Chdir(dir); err != nil {
			e.errorf("cannot use -C %s: %v", dir, err)
			return nil, false
		}
	}
	if _, err := os.Stat(statePath()); err != nil {
		e.errorf("no state in %s: nothing has been applied here yet", stateDir)
		return nil, false
	}
	s, err := state.OpenSQLite(statePath())
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return s, true
}

// keys loads the state's key, for reading sealed objects and outputs.
func (e *env) keys() (*secrets.Keys, bool) {
	k, err := secrets.Load(stateDir)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return k, true
}

func (e *env) output(ctx context.Context, args []string) int {
	fs := e.flags("output", nil)
	dir := fs.String("C", ".", "configuration folder")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return 1
	}
	store, ok := e.openState(*dir)
	if !ok {
		return 1
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	if err != nil {
		return e.errorf("%v", err)
	}
	keys, ok := e.keys()
	if !ok {
		return 1
	}
	names := sortedKeys(snap.Outputs)
	if len(pos) > 0 {
		if _, ok := snap.Outputs[pos[0]]; !ok {
			return e.errorf("no output named %q. Outputs: %s", pos[0], strings.Join(names, ", "))
		}
		names = pos[:1]
	}
	type jsonOutput struct {
		Sensitive bool            `json:"sensitive"`
		Type      json.RawMessage `json:"type"`
		Value     json.RawMessage `json:"value,omitempty"`
	}
	all := map[string]jsonOutput{}
	for _, name := range names {
		o := snap.Outputs[name]
		opened, err := keys.Open(o.Value)
		if err != nil {
			return e.errorf("output %q: %v", name, err)
		}
		var raw struct {
			Value json.RawMessage `json:"value"`
			Type  json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(opened, &raw); err != nil {
			return e.errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		v, err := ctyjson.Unmarshal(opened, cty.DynamicPseudoType)
		if err != nil {
			return e.errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		if o.Sensitive {
			v = v.Mark(marks.Sensitive)
			// Sensitive values stay off stdout, in JSON too.
			raw.Value = nil
		}
		switch {
		case *asJSON && len(pos) > 0:
			if o.Sensitive {
				fmt.Fprintln(e.stdout, `"(sensitive value)"`)
			} else {
				fmt.Fprintln(e.stdout, string(raw.Value))
			}
		case *asJSON:
			all[name] = jsonOutput{Sensitive: o.Sensitive, Type: raw.Type, Value: raw.Value}
		case len(pos) > 0:
			if !o.Sensitive && v.Type() == cty.String {
				fmt.Fprintln(e.stdout, v.AsString())
			} else {
				fmt.Fprintln(e.stdout, ui.FormatValue(v, 0))
			}
		default:
			fmt.Fprintf(e.stdout, "%s = %s\n", name, ui.FormatValue(v, 0))
		}
	}
	if *asJSON && len(pos) == 0 {
		b, _ := json.MarshalIndent(all, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	}
	return 0
}

func (e *env) state(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return e.errorf("state needs a subcommand: list, show ADDRESS, unlock")
	}
	fs := e.flags("state "+args[0], nil)
	dir := fs.String("C", ".", "configuration folder")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return 1
	}
	store, ok := e.openState(*dir)
	if !ok {
		return 1
	}
	defer store.Close()
	switch args[0] {
	case "list":
		snap, err := store.Load(ctx)
		if err != nil {
			return e.errorf("%v", err)
		}
		for _, addr := range sortedKeys(snap.Objects) {
			fmt.Fprintln(e.stdout, addr)
		}
		return 0
	case "show":
		if len(pos) != 1 {
			return e.errorf("state show takes one resource address, e.g. tether_file.a")
		}
		snap, err := store.Load(ctx)
		if err != nil {
			return e.errorf("%v", err)
		}
		obj, ok := snap.Objects[pos[0]]
		if !ok {
			return e.errorf("no object at %s in state. Recorded: %s", pos[0], strings.Join(sortedKeys(snap.Objects), ", "))
		}
		keys, ok := e.keys()
		if !ok {
			return 1
		}
		v, err := decodeObject(keys, obj)
		if err != nil {
			return e.errorf("%s: %v", obj.Address, err)
		}
		if err := ui.RenderObject(e.stdout, obj.Address, v); err != nil {
			return e.errorf("%v", err)
		}
		return 0
	case "unlock":
		info, err := store.ForceUnlock(ctx)
		if err != nil {
			return e.errorf("%v", err)
		}
		if info == nil {
			fmt.Fprintln(e.stdout, "The state was not locked.")
			return 0
		}
		fmt.Fprintf(e.stdout, "Broke the lock held by %s (pid %d on %s, %s since %s).\n", info.Who, info.PID, info.Host, info.Operation, info.Created.Format("2006-01-02 15:04:05"))
		return 0
	}
	return e.errorf("unknown state subcommand %q: use list, show ADDRESS or unlock", args[0])
}

// decodeObject reads a recorded object with its provider's schema, marking
// what is sensitive.
func decodeObject(keys *secrets.Keys, obj *state.Object) (cty.Value, error) {
	provs, schemas, _, _ := providers()
	defer func() {
		for _, p := range provs {
			p.Close()
		}
	}()
	s, ok := schemas[obj.Provider]
	if !ok {
		return cty.NilVal, fmt.Errorf("provider %q is not available", obj.Provider)
	}
	rs, ok := s.Resources[obj.Type]
	if !ok {
		return cty.NilVal, fmt.Errorf("provider %q has no resource type %q", obj.Provider, obj.Type)
	}
	return engine.RecordedValue(keys, obj, rs)
}

func (e *env) graph(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("graph", &c)
	archFlag := fs.Bool("arch", false, "show the architecture of a Go program's closures")
	if _, err := parse(fs, args); err != nil {
		return 1
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	provs, _, cfg, ok := e.load(ctx, &c)
	for _, p := range provs {
		p.Close()
	}
	if !ok {
		return 1
	}
	if *archFlag {
		return e.archGraph()
	}
	fmt.Fprintln(e.stdout, "digraph tether {")
	fmt.Fprintln(e.stdout, "  rankdir = \"RL\";")
	for _, n := range cfg.Nodes {
		shape := "box"
		switch n.Kind.String() {
		case "variable", "local value", "output":
			shape = "note"
		case "provider":
			shape = "diamond"
		}
		fmt.Fprintf(e.stdout, "  %q [shape = %s];\n", n.Addr, shape)
	}
	for _, n := range cfg.Nodes {
		var deps []string
		for _, r := range n.Refs {
			deps = append(deps, r.Addr)
		}
		for _, r := range n.DependsOn {
			deps = append(deps, r.Addr)
		}
		if n.Provider != "" && n.Addr != "provider."+n.Provider {
			deps = append(deps, "provider."+n.Provider)
		}
		sort.Strings(deps)
		for i, d := range deps {
			if i > 0 && deps[i-1] == d {
				continue
			}
			fmt.Fprintf(e.stdout, "  %q -> %q;\n", n.Addr, d)
		}
	}
	fmt.Fprintln(e.stdout, "}")
	return 0
}

func (e *env) provider(args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		return e.errorf("provider takes one subcommand: serve (serves the built-in provider over the Terraform plugin protocol)")
	}
	if err := protocol.Serve("registry.terraform.io/tetherhq/tether", func() provider.Provider { return tetherprovider.New() }); err != nil {
		return e.errorf("%v", err)
	}
	return 0
}
