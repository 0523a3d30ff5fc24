package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/tfstate"
)

// Terraform state in and out: init adopts the state of a folder Terraform
// manages, state pull writes Tether's state in Terraform's format, and
// state push replaces Tether's state with a Terraform state file.

// terraformStateFile is where Terraform's local backend keeps state, and
// adoptedSuffix what init renames it with once Tether has taken it over,
// so that neither tool reads it again by mistake.
const (
	terraformStateFile = "terraform.tfstate"
	adoptedSuffix      = ".adopted"
)

// terraformSource is the state Terraform keeps for the folder, offered
// for adoption.
type terraformSource struct {
	file  *tfstate.File
	where string // names it in messages
	// setAside puts it out of Terraform's way once Tether holds the
	// state, and says where it went.
	setAside func(context.Context) (string, error)
	// close lets go of it (Terraform's lock on a PostgreSQL row).
	close func()
}

// terraformState finds the state Terraform keeps for the folder: with a
// pg backend, the row of Terraform's states table for the selected
// workspace in the same schema; otherwise its local backend's
// terraform.tfstate. It returns nil when there is none.
func (e *env) terraformState(ctx context.Context) (*terraformSource, error) {
	src, err := e.terraformTable(ctx)
	if src != nil || err != nil {
		return src, err
	}
	r, err := os.Open(terraformStateFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := tfstate.Read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", terraformStateFile, err)
	}
	adopted := terraformStateFile + adoptedSuffix
	if _, err := os.Lstat(adopted); err == nil {
		return nil, fmt.Errorf("%s exists, and adopting %s would rename it to that name: move one of them aside first", adopted, terraformStateFile)
	}
	return &terraformSource{
		file:  f,
		where: terraformStateFile,
		setAside: func(context.Context) (string, error) {
			return adopted, os.Rename(terraformStateFile, adopted)
		},
		close: func() {},
	}, nil
}

// terraformTable reads the state Terraform's pg backend keeps beside
// Tether's in the schema of the folder's pg backend, when it has one.
// An empty state (Terraform writes one when it creates a workspace) is
// not offered: there is nothing to take over.
func (e *env) terraformTable(ctx context.Context) (*terraformSource, error) {
	b, err := e.openFolderBackend(ctx)
	if err != nil {
		return nil, err
	}
	// The backend's connection holds Terraform's lock until the state is
	// set aside, so it stays open until then.
	keep := false
	defer func() {
		if !keep {
			b.Close()
		}
	}()
	ws, err := backend.Selected(stateDir)
	if err != nil {
		return nil, err
	}
	ts, err := b.TerraformState(ctx, ws)
	if err != nil || ts == nil {
		return nil, err
	}
	f, err := tfstate.Read(bytes.NewReader(ts.Data))
	if err != nil {
		ts.Release()
		return nil, fmt.Errorf("%s: %v", ts.Where, err)
	}
	if len(f.Resources) == 0 && len(f.Outputs) == 0 {
		ts.Release()
		return nil, nil
	}
	keep = true
	return &terraformSource{file: f, where: ts.Where, setAside: ts.SetAside, close: func() { ts.Release(); b.Close() }}, nil
}

// adoptTerraform offers, at the end of init, to take over the state of a
// folder Terraform manages. forceCopy answers yes without asking (as
// Terraform's init -force-copy does for its state migrations); without
// it, init asks on a terminal and otherwise fails, so that a script never
// leaves half of its infrastructure to each tool by accident. It returns
// the exit code to stop with, or -1 to go on.
func (e *env) adoptTerraform(ctx context.Context, forceCopy, input bool) int {
	src, err := e.terraformState(ctx)
	if err != nil {
		return e.errorf("%v", err)
	}
	if src == nil {
		return -1
	}
	defer src.close()
	f, where := src.file, src.where
	if n, err := e.recordedCount(ctx); err != nil && !errors.Is(err, errNoState) {
		return e.errorf("%v", err)
	} else if n > 0 {
		fmt.Fprintf(e.stderr, "Warning: %s is here too, but Tether's state already records %d objects and outputs: it was not adopted. To replace Tether's state with it, write it to a file and run: tether state push FILE\n",
			where, n)
		return -1
	}
	instances := 0
	for _, r := range f.Resources {
		if r.Mode == "managed" {
			instances += len(r.Instances)
		}
	}
	fmt.Fprintf(e.stdout, "\nTerraform state found: %s records %d resource instances and %d outputs (lineage %s, serial %d).\n",
		where, instances, len(f.Outputs), f.Lineage, f.Serial)
	if !forceCopy {
		if err := e.askAdopt(where, input); err != nil {
			return e.errorf("%v", err)
		}
	}
	store, err := e.openStore(ctx, true)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer store.Close()
	unlock, snap, ok := e.editState(ctx, store, "init")
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	if len(snap.Objects) > 0 || len(snap.Outputs) > 0 {
		return e.errorf("Tether's state was written to while init asked; %s was not adopted", where)
	}
	n, code := e.replaceState(ctx, store, f)
	if code >= 0 {
		return code
	}
	adopted, err := src.setAside(ctx)
	if err != nil {
		return e.errorf("Tether now holds the state, but %s could not be set aside: %v; move or remove it yourself, so that terraform does not use it", where, err)
	}
	fmt.Fprintf(e.stdout, "Tether took over %d resource instances and %d outputs; %s is now %s.\n", n.objects, n.outputs, where, adopted)
	if n.dataSources > 0 {
		fmt.Fprintf(e.stdout, "(%d data source results were not copied: Tether reads data sources afresh on every plan.)\n", n.dataSources)
	}
	return -1
}

// recordedCount counts the objects and outputs in the folder's state.
func (e *env) recordedCount(ctx context.Context) (int, error) {
	store, err := e.openStore(ctx, false)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	if err != nil {
		return 0, err
	}
	return len(snap.Objects) + len(snap.Outputs), nil
}

// askAdopt asks whether to take over Terraform's state.
func (e *env) askAdopt(where string, input bool) error {
	hint := "run tether init -force-copy to take it over, or move it aside to leave it to Terraform"
	if !input {
		return fmt.Errorf("%s holds Terraform state and --input=false forbids asking whether to take it over: %s", where, hint)
	}
	if !e.stdinTTY {
		return fmt.Errorf("%s holds Terraform state and stdin is not a terminal, so nobody can say whether to take it over: %s", where, hint)
	}
	fmt.Fprintf(e.stdout, `
Do you want Tether to take over this state?
  Tether copies every resource instance and output into its own state,
  sealing sensitive values, and sets %s aside
  (a file is renamed, a PostgreSQL row moved to tether_terraform_adopted).
  Terraform should not manage this folder afterwards; "tether state pull"
  writes the state back in Terraform's format.
  Only 'yes' will be accepted to approve.

  Enter a value: `, where)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return fmt.Errorf("cancelled: the answer was not 'yes'; %s was left as it is and Tether's state is empty", where)
	}
	return nil
}

type replaced struct{ objects, outputs, dataSources int }

// replaceState records f in place of everything store holds, sealing
// sensitive values; the caller holds the lock. It returns the exit code
// to stop with, or -1 to go on.
func (e *env) replaceState(ctx context.Context, store state.Store, f *tfstate.File) (replaced, int) {
	keys, ok := e.keys()
	if !ok {
		return replaced{}, 1
	}
	pool, err := e.newPool(ctx, e.stderr)
	if err != nil {
		return replaced{}, e.errorf("%v", err)
	}
	defer pool.close()
	a, err := engine.FromTerraform(keys, pool.factory(), f)
	if err != nil {
		return replaced{}, e.errorf("cannot take over the Terraform state: %v", err)
	}
	snap, err := store.Load(ctx)
	if err != nil {
		return replaced{}, e.errorf("%v", err)
	}
	ch := a.Changes
	for addr := range snap.Objects {
		ch.Delete = append(ch.Delete, addr)
	}
	for name := range snap.Outputs {
		ch.DeleteOutputs = append(ch.DeleteOutputs, name)
	}
	if err := store.Commit(ctx, ch); err != nil {
		return replaced{}, e.errorf("%v", err)
	}
	return replaced{objects: len(ch.Put), outputs: len(ch.PutOutputs), dataSources: a.DataSources}, -1
}

// errNoState is openStore's error for a workspace with no state yet.
var errNoState = errors.New("no state here: nothing has been applied yet")

// openStore opens the state of the selected workspace in the folder's
// backend (see internal/backend), creating it when create is set.
func (e *env) openStore(ctx context.Context, create bool) (state.Store, error) {
	b, err := e.openFolderBackend(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	ws, err := backend.Selected(stateDir)
	if err != nil {
		return nil, err
	}
	if ok, err := b.StateExists(ctx, ws); err != nil {
		return nil, err
	} else if !ok && !create {
		return nil, errNoState
	}
	store, err := b.State(ctx, ws)
	if err != nil {
		return nil, err
	}
	e.stateKeys = b.Keys
	return store, nil
}

// openFolderBackend opens the backend init settled for the folder's
// configuration.
func (e *env) openFolderBackend(ctx context.Context) (*backend.Backend, error) {
	var block *config.Backend
	if e.src == nil {
		b, diags := hclconfig.Backend(".", hclconfig.Options{Environ: os.Environ()})
		if diags.HasErrors() {
			return nil, diags
		}
		block = b
	}
	settings, err := backend.Resolve(stateDir, block)
	if err != nil {
		return nil, err
	}
	return backend.Open(ctx, stateDir, settings)
}

// statePull writes the state in Terraform's format (version 4) to
// stdout, sensitive values in clear text, as Terraform keeps them.
func (e *env) statePull(ctx context.Context, store state.Store) int {
	snap, err := store.Load(ctx)
	if err != nil {
		return e.errorf("%v", err)
	}
	keys, pool, ok := e.readers(ctx)
	if !ok {
		return 1
	}
	defer pool.close()
	f, err := engine.ToTerraform(keys, pool.factory(), snap)
	if err != nil {
		return e.errorf("cannot write the state in Terraform's format: %v", err)
	}
	if err := tfstate.Write(e.stdout, f); err != nil {
		return e.errorf("%v", err)
	}
	return 0
}

// statePush replaces the state with a Terraform state file ("-" reads
// stdin), with Terraform's checks: unless forced, a file of another
// lineage, or an older serial, or the same serial with different
// contents, is refused.
func (e *env) statePush(ctx context.Context, store state.Store, pos []string, force bool) int {
	if len(pos) != 1 {
		return e.errorf("state push takes one file, a Terraform state (version 4), or - for standard input")
	}
	var r io.Reader = e.stdin
	if pos[0] != "-" {
		file, err := os.Open(pos[0])
		if err != nil {
			return e.errorf("%v", err)
		}
		defer file.Close()
		r = file
	}
	f, err := tfstate.Read(r)
	if err != nil {
		return e.errorf("%s: %v", pos[0], err)
	}
	unlock, snap, ok := e.editState(ctx, store, "state push")
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	if !force && (len(snap.Objects) > 0 || len(snap.Outputs) > 0) {
		if code := e.checkPush(ctx, snap, f); code >= 0 {
			return code
		}
	}
	n, code := e.replaceState(ctx, store, f)
	if code >= 0 {
		return code
	}
	fmt.Fprintf(e.stdout, "Pushed %d resource instances and %d outputs (lineage %s, serial %d).\n", n.objects, n.outputs, f.Lineage, f.Serial)
	return 0
}

// checkPush applies Terraform's rules for replacing state.
func (e *env) checkPush(ctx context.Context, snap *state.Snapshot, f *tfstate.File) int {
	switch {
	case f.Lineage != snap.Lineage:
		return e.errorf("cannot import state with lineage %q over unrelated state with lineage %q; run with -force to replace it anyway", f.Lineage, snap.Lineage)
	case f.Serial < snap.Serial:
		return e.errorf("cannot import state with serial %d over newer state with serial %d; run with -force to replace it anyway", f.Serial, snap.Serial)
	case f.Serial == snap.Serial:
		keys, pool, ok := e.readers(ctx)
		if !ok {
			return 1
		}
		defer pool.close()
		cur, err := engine.ToTerraform(keys, pool.factory(), snap)
		if err != nil {
			return e.errorf("%v", err)
		}
		same, err := sameState(cur, f)
		if err != nil {
			return e.errorf("%v", err)
		}
		if !same {
			return e.errorf("cannot overwrite existing state with serial %d with a different state that has the same serial; run with -force to replace it anyway", f.Serial)
		}
	}
	return -1
}

// sameState compares two state files' resources and outputs.
func sameState(a, b *tfstate.File) (bool, error) {
	var wa, wb strings.Builder
	norm := func(f *tfstate.File, w *strings.Builder) error {
		g := *f
		g.TerraformVersion, g.CheckResults = "", nil
		var kept []tfstate.Resource
		for _, r := range g.Resources {
			if r.Mode == "managed" {
				kept = append(kept, r)
			}
		}
		g.Resources = kept
		return tfstate.Write(w, &g)
	}
	if err := norm(a, &wa); err != nil {
		return false, err
	}
	if err := norm(b, &wb); err != nil {
		return false, err
	}
	return wa.String() == wb.String(), nil
}
