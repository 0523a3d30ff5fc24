package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"

	"github.com/tetherhq/tether/internal/provider"
)

// openState opens the state of the configuration folder's selected
// workspace for reading. It refuses to create state where there is none.
func (e *env) openState(dir string) (state.Store, bool) { return e.openStateOf(dir, false) }

// openStateOf is openState; with settled, it opens the backend tether init
// last set up even when the backend block changed since: state unlock
// breaks the lock of the state that is there, which an init
// -migrate-state killed mid-way leaves locked while the block already
// names the new backend.
func (e *env) openStateOf(dir string, settled bool) (state.Store, bool) {
	if dir != "" && dir != "." {
		if err := os.Chdir(dir); err != nil {
			e.errorf("cannot use -C %s: %v", dir, err)
			return nil, false
		}
	}
	ctx := context.Background()
	ws, ok := e.selectedWorkspace()
	if !ok {
		return nil, false
	}
	open := e.openBackend
	if settled {
		open = e.openSettledBackend
	}
	b, ok := open(ctx, nil)
	if !ok {
		return nil, false
	}
	defer b.Close()
	s, ok := e.openWorkspace(ctx, b, ws, true)
	if !ok {
		return nil, false
	}
	e.stateKeys = b.Keys
	return s, true
}

// readers loads what reading recorded objects takes: the state's key, to
// open sealed values, and the providers, for their schemas. On failure it
// has printed why. The caller closes the pool.
func (e *env) readers(ctx context.Context) (*secrets.Keys, *providerPool, bool) {
	keys, ok := e.keys()
	if !ok {
		return nil, nil, false
	}
	pool, err := e.newPool(ctx, e.stderr)
	if err != nil {
		e.errorf("%v", err)
		return nil, nil, false
	}
	return keys, pool, true
}

// keys loads the state's key, for reading sealed objects and outputs.
func (e *env) keys() (*secrets.Keys, bool) {
	load := e.stateKeys
	if load == nil {
		load = func() (*secrets.Keys, error) { return secrets.Load(stateDir) }
	}
	k, err := load()
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
	raw := fs.Bool("raw", false, "print a string, number or bool as it is")
	fs.BoolVar(new(bool), "no-color", false, "print no colours")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	switch {
	case len(pos) > 1:
		return e.errorf("output takes at most one output name, but was given %q", strings.Join(pos, " "))
	case *asJSON && *raw:
		return e.errorf("--json and --raw cannot be used together: choose one")
	case *raw && len(pos) == 0:
		return e.errorf("--raw needs the name of an output: tether output --raw NAME")
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
	if len(names) == 0 && len(pos) == 0 && !*asJSON {
		// Terraform warns on stdout and exits 0: the list is empty,
		// which a script may take for a success.
		ui.WriteDiagnostics(e.stdout, hcl.Diagnostics{{
			Severity: hcl.DiagWarning,
			Summary:  "No outputs found",
			Detail:   "The state records no outputs: the configuration declares none, or all of them are null. Declare one with an output block (in a Go program, Stack.Export) and apply for it to be recorded.",
		}}, nil, e.color)
		return 0
	}
	if len(pos) > 0 {
		if _, ok := snap.Outputs[pos[0]]; !ok {
			return e.errorf("no output named %q. Outputs: %s", pos[0], strings.Join(names, ", "))
		}
		names = pos
	}
	type jsonOutput struct {
		Sensitive bool            `json:"sensitive"`
		Type      json.RawMessage `json:"type"`
		Value     json.RawMessage `json:"value"`
	}
	all := map[string]jsonOutput{}
	for _, name := range names {
		o := snap.Outputs[name]
		opened, err := keys.Open(o.Value)
		if err != nil {
			return e.errorf("output %q: %v", name, err)
		}
		var recorded struct {
			Value json.RawMessage `json:"value"`
			Type  json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(opened, &recorded); err != nil {
			return e.errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		v, err := ctyjson.Unmarshal(opened, cty.DynamicPseudoType)
		if err != nil {
			return e.errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		// As in Terraform, a sensitive output is hidden only in the list
		// of all outputs: named, or asked for as JSON, its value is what
		// the caller wants, and a placeholder would be taken for it.
		switch {
		case *raw:
			return e.rawOutput(name, v)
		case *asJSON && len(pos) > 0:
			fmt.Fprintln(e.stdout, string(recorded.Value))
		case *asJSON:
			all[name] = jsonOutput{Sensitive: o.Sensitive, Type: recorded.Type, Value: recorded.Value}
		case len(pos) > 0:
			fmt.Fprintln(e.stdout, ui.FormatValue(v, 0))
		default:
			if o.Sensitive {
				v = v.Mark(marks.Sensitive)
			}
			fmt.Fprintf(e.stdout, "%s = %s\n", name, ui.FormatValue(v, 0))
		}
	}
	if *asJSON && len(pos) == 0 {
		b, _ := json.MarshalIndent(all, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	}
	return 0
}

// rawOutput prints a primitive value as it is, with no quotes and no
// newline, for shell scripts: `curl "$(tether output --raw url)"`.
func (e *env) rawOutput(name string, v cty.Value) int {
	if v.IsNull() {
		return e.errorf("output %q is null; --raw can print only a string, number or bool", name)
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || !v.Type().IsPrimitiveType() {
		return e.errorf("output %q is of type %s; --raw can print only a string, number or bool: use --json", name, v.Type().FriendlyName())
	}
	fmt.Fprint(e.stdout, s.AsString())
	return 0
}

func (e *env) state(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return e.errorf("state needs a subcommand: list, show, rm, mv, pull, push, replace-provider or unlock. Run \"tether state --help\" for more")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		e.printHelp("state")
		return 0
	}
	switch args[0] {
	case "list", "show", "rm", "mv", "pull", "push", "replace-provider", "unlock":
	default:
		return e.errorf("unknown state subcommand %q: use list, show, rm, mv, pull, push, replace-provider or unlock", args[0])
	}
	fs := e.flags("state "+args[0], nil)
	dir := fs.String("C", ".", "configuration folder")
	dryRun := fs.Bool("dry-run", false, "show what would change, change nothing")
	force := fs.Bool("force", false, "state unlock: break the lock even though its holder is running on this host; state push: skip the lineage and serial checks")
	autoApprove := new(bool)
	if args[0] == "replace-provider" {
		fs.BoolVar(autoApprove, "auto-approve", false, "replace without asking")
	}
	pos, err := parse(fs, args[1:])
	if err != nil {
		return e.flagError(fs, err)
	}
	if *dryRun && args[0] != "rm" && args[0] != "mv" {
		return e.errorf("--dry-run applies to state rm and state mv only")
	}
	if *force && args[0] != "unlock" && args[0] != "push" {
		return e.errorf("-force applies to state unlock and state push only")
	}
	if args[0] == "push" {
		// Pushing may create the state.
		if *dir != "" && *dir != "." {
			if err := os.Chdir(*dir); err != nil {
				return e.errorf("cannot use -C %s: %v", *dir, err)
			}
		}
		store, err := e.openStore(ctx, "", true)
		if err != nil {
			return e.errorf("%v", err)
		}
		defer store.Close()
		return e.statePush(ctx, store, pos, *force)
	}
	store, ok := e.openStateOf(*dir, args[0] == "unlock")
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
		return e.stateList(snap, pos)
	case "rm":
		return e.stateRemove(ctx, store, pos, *dryRun)
	case "pull":
		if len(pos) > 0 {
			return e.errorf("state pull takes no arguments, but was given %q", strings.Join(pos, " "))
		}
		return e.statePull(ctx, store)
	case "mv":
		return e.stateMove(ctx, store, pos, *dryRun)
	case "replace-provider":
		return e.stateReplaceProvider(ctx, store, pos, *autoApprove)
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
		keys, pool, ok := e.readers(ctx)
		if !ok {
			return 1
		}
		defer pool.close()
		v, schema, err := decodeObject(keys, obj, pool.factory())
		if err != nil {
			return e.errorf("%s: %v", obj.Address, err)
		}
		if err := ui.RenderObject(e.stdout, obj.Address, v, schema); err != nil {
			return e.errorf("%v", err)
		}
		return 0
	case "unlock":
		if len(pos) > 0 {
			return e.errorf("state unlock takes no arguments, but was given %q", strings.Join(pos, " "))
		}
		if code := e.unlock(ctx, store, *force); code != 0 {
			return code
		}
		// An init -migrate-state killed mid-way leaves the destination,
		// the backend the block names now, locked too.
		other, where, ok := e.changedBackendState(ctx)
		if !ok {
			return 0
		}
		defer other.Close()
		fmt.Fprintf(e.stdout, "The backend block now names %s, which tether init has not set up:\n", where)
		return e.unlock(ctx, other, *force)
	}
	return 1
}

// forceUnlock is Terraform's force-unlock: it breaks the state lock of the
// ID given, the one a refused command printed, after asking unless
// -force. A lock of another ID (taken since the ID was read) is left
// alone.
func (e *env) forceUnlock(ctx context.Context, args []string) int {
	fs := e.flags("force-unlock", nil)
	dir := fs.String("C", ".", "configuration folder")
	force := fs.Bool("force", false, "break the lock without asking")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) != 1 {
		return e.errorf("force-unlock takes one argument, the ID of the lock to break (a command the lock refused printed it), but was given %d", len(pos))
	}
	store, ok := e.openStateOf(*dir, true)
	if !ok {
		return 1
	}
	defer store.Close()
	if !*force {
		if !e.stdinTTY {
			return e.errorf("refusing to break the lock: stdin is not a terminal, so nobody can confirm. Run again with -force to break it without asking")
		}
		if !e.answeredYes("Do you really want to force-unlock?\n  Tether will remove the lock on the state.\n  This will allow local Tether commands to modify this state, even though it\n  may still be in use. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ") {
			return e.errorf("force-unlock cancelled: the answer was not 'yes'; the lock is still held")
		}
	}
	info, err := store.ForceUnlock(ctx, pos[0])
	if err != nil {
		return e.errorf("%v", err)
	}
	if info == nil {
		return e.errorf("the state is not locked: there is no lock %s to break", pos[0])
	}
	fmt.Fprintf(e.stdout, "Broke the lock held by %s (pid %d on %s, %s since %s).\n\nTether state has been successfully unlocked!\n",
		info.Who, info.PID, info.Host, info.Operation, info.Created.Format("2006-01-02 15:04:05"))
	return 0
}

// unlock breaks the lock of store, unless its holder still runs here.
func (e *env) unlock(ctx context.Context, store state.Store, force bool) int {
	if code := e.checkUnlock(ctx, store, force); code >= 0 {
		return code
	}
	info, err := store.ForceUnlock(ctx, "")
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

// changedBackendState opens the selected workspace's state in the backend
// the configuration's block names, when that is not the one tether init
// set up and the state exists there; ok is false otherwise, and when it
// cannot be opened without init (a setting given to init only).
func (e *env) changedBackendState(ctx context.Context) (state.Store, string, bool) {
	if e.src != nil {
		return nil, "", false
	}
	block, diags := hclconfig.Backend(".", hclconfig.Options{Environ: os.Environ()})
	if diags.HasErrors() {
		return nil, "", false
	}
	var changed *backend.InitRequiredError
	if _, err := backend.Resolve(stateDir, block); !errors.As(err, &changed) {
		return nil, "", false
	}
	settings, err := backend.FromBlock(block, nil)
	if err != nil {
		return nil, "", false
	}
	b, err := backend.Open(ctx, stateDir, settings)
	if err != nil {
		return nil, "", false
	}
	defer b.Close()
	ws, err := backend.Selected(stateDir)
	if err != nil {
		return nil, "", false
	}
	if ok, err := b.StateExists(ctx, ws); err != nil || !ok {
		return nil, "", false
	}
	st, err := b.State(ctx, ws)
	if err != nil {
		return nil, "", false
	}
	return st, b.Describe(), true
}

// checkUnlock refuses to break a lock whose holder is still running on
// this host, unless forced: two operations writing one state create
// resources twice. It returns the exit code to stop with, or -1 to go on.
func (e *env) checkUnlock(ctx context.Context, store state.Store, force bool) int {
	probe, err := store.Lock(ctx, state.LockInfo{Operation: "state unlock"})
	if err == nil {
		probe.Unlock()
		fmt.Fprintln(e.stdout, "The state was not locked.")
		return 0
	}
	var held *state.LockedError
	if !errors.As(err, &held) {
		return e.errorf("%v", err)
	}
	h := held.Holder
	if alive, known := state.HolderAlive(h); alive && known && !force {
		return e.errorf("the state is locked by operation %q, which is still running (pid %d on this host, %s, since %s); "+
			"stop it instead, or if you are sure it no longer writes this state, run: tether state unlock -force",
			h.Operation, h.PID, h.Who, h.Created.Format("2006-01-02 15:04:05"))
	}
	return -1
}

// decodeObject reads a recorded object with its provider's schema, marking
// what is sensitive, and returns it with that schema's block, which the
// ui needs to show nested blocks as blocks.
func decodeObject(keys *secrets.Keys, obj *state.Object, providers provider.Factory) (cty.Value, *provider.Block, error) {
	rs, err := objectSchema(obj, providers)
	if err != nil {
		return cty.NilVal, nil, err
	}
	v, err := engine.RecordedValue(keys, obj, rs)
	return v, rs.Block, err
}

// objectSchema is the schema of a recorded object's type, from the
// provider that recorded it.
func objectSchema(obj *state.Object, providers provider.Factory) (*provider.ResourceSchema, error) {
	pc, err := addr.ParseProviderConfig(obj.Provider)
	if err != nil {
		return nil, err
	}
	s, err := providers.Schema(pc.Source.String())
	if err != nil {
		return nil, err
	}
	types, kind := s.Resources, "resource"
	if obj.Mode == state.Data {
		types, kind = s.DataSources, "data source"
	}
	rs, ok, err := types.Get(obj.Type)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", pc.Source.ForDisplay(), err)
	}
	if !ok {
		return nil, fmt.Errorf("provider %s has no %s type %q", pc.Source.ForDisplay(), kind, obj.Type)
	}
	return rs, nil
}

func (e *env) graph(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("graph", &c)
	archFlag := fs.Bool("arch", false, "show the architecture of a Go program's closures")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	pool, cfg, ok := e.load(ctx, &c, nil)
	pool.close()
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
		if n.Provider != "" && n.Addr != n.Provider {
			deps = append(deps, n.Provider)
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
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		e.printHelp("provider")
		return 0
	}
	if len(args) != 1 || args[0] != "serve" {
		return e.errorf("provider takes one subcommand: serve (serves the built-in provider over the Terraform plugin protocol)")
	}
	// A server's heap is small and long-lived: protocol.Serve sets its own
	// collector policy, which a command's must not override.
	stopPolicy()
	if err := protocol.Serve("registry.terraform.io/tetherhq/tether", func() provider.Provider { return tetherprovider.New() }); err != nil {
		return e.errorf("%v", err)
	}
	return 0
}
