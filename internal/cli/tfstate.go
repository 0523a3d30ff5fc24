package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// terraformStateFile is where Terraform's local backend keeps the default
// workspace's state, terraformWorkspaceDir the folder of its other
// workspaces' folders (NAME/terraform.tfstate), and adoptedSuffix what
// init renames a state file with once Tether has taken it over, so that
// neither tool reads it again by mistake.
const (
	terraformStateFile    = "terraform.tfstate"
	terraformWorkspaceDir = "terraform.tfstate.d"
	adoptedSuffix         = ".adopted"
)

// terraformSource is the state Terraform keeps for one workspace of the
// folder, offered for adoption into Tether's workspace of the same name.
type terraformSource struct {
	workspace string
	file      *tfstate.File
	where     string // names it in messages
	// setAside puts it out of Terraform's way once Tether holds the
	// state, and says where it went.
	setAside func(context.Context) (string, error)
	// close lets go of it (Terraform's lock on a PostgreSQL row).
	close func()
}

// terraformStates finds the state Terraform keeps for every workspace of
// the folder: with a pg backend, the rows of Terraform's states table in
// the same schema; otherwise its local backend's files, terraform.tfstate
// for the default workspace and terraform.tfstate.d/NAME/terraform.tfstate
// for workspace NAME. An empty state (Terraform writes one when it
// creates a workspace) is not offered: there is nothing to take over. A
// workspace whose name Tether does not allow is an error naming it, so
// that no workspace is left behind unsaid. The caller closes every
// source it gets, also with an error.
func (e *env) terraformStates(ctx context.Context) ([]*terraformSource, error) {
	srcs, err := e.terraformTable(ctx)
	if srcs != nil || err != nil {
		return srcs, err
	}
	if src, err := terraformFile(backend.DefaultWorkspace, terraformStateFile, false); src != nil || err != nil {
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src)
	}
	entries, err := os.ReadDir(terraformWorkspaceDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, en := range entries {
		if !en.IsDir() {
			continue
		}
		path := filepath.Join(terraformWorkspaceDir, en.Name(), terraformStateFile)
		src, err := terraformFile(en.Name(), path, true)
		if err == nil && src != nil {
			err = adoptableName(src)
		}
		if err != nil {
			return nil, err
		}
		if src != nil {
			srcs = append(srcs, src)
		}
	}
	return srcs, nil
}

// terraformFile reads the Terraform state file at path, nil when there is
// none, or, with skipEmpty, when it records nothing.
func terraformFile(ws, path string, skipEmpty bool) (*terraformSource, error) {
	f, err := readTerraformFile(path)
	if f == nil || err != nil {
		return nil, err
	}
	if skipEmpty && f.Empty() {
		return nil, nil
	}
	adopted := path + adoptedSuffix
	if _, err := os.Lstat(adopted); err == nil {
		return nil, fmt.Errorf("%s exists, and adopting %s would rename it to that name: move one of them aside first", adopted, path)
	}
	return &terraformSource{
		workspace: ws,
		file:      f,
		where:     path,
		setAside: func(context.Context) (string, error) {
			return adopted, os.Rename(path, adopted)
		},
		close: func() {},
	}, nil
}

// readTerraformFile reads the Terraform state file at path, nil when there
// is none.
func readTerraformFile(path string) (*tfstate.File, error) {
	r, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := tfstate.Read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return f, nil
}

// adoptableName refuses a Terraform workspace whose name Tether does not
// allow (Terraform allows more), before anything is adopted.
func adoptableName(src *terraformSource) error {
	if err := backend.CheckName(src.workspace); err != nil {
		return fmt.Errorf("%s: Terraform's workspace cannot become a Tether workspace of the same name: %v. Nothing was adopted; rename the workspace in Terraform (terraform workspace new, terraform state push), or move its state aside to leave it to Terraform", src.where, err)
	}
	return nil
}

// terraformTable reads the states Terraform's pg backend keeps beside
// Tether's in the schema of the folder's pg backend, when it has one.
// Each is read under Terraform's lock on its row, held until the source
// is closed.
func (e *env) terraformTable(ctx context.Context) ([]*terraformSource, error) {
	b, err := e.openFolderBackend(ctx)
	if err != nil {
		return nil, err
	}
	names, err := b.TerraformWorkspaces(ctx)
	if err != nil || len(names) == 0 {
		b.Close()
		return nil, err
	}
	// The backend's connection holds Terraform's locks until the states
	// are set aside, so it stays open until the last source is closed.
	var srcs []*terraformSource
	refs := 1
	release := func() {
		if refs--; refs == 0 {
			b.Close()
		}
	}
	defer release()
	for _, ws := range names {
		ts, err := b.TerraformState(ctx, ws)
		if err != nil {
			closeAll(srcs)
			return nil, err
		}
		if ts == nil {
			continue
		}
		src := &terraformSource{workspace: ws, where: ts.Where, setAside: ts.SetAside}
		refs++
		src.close = func() { ts.Release(); release() }
		if src.file, err = tfstate.Read(bytes.NewReader(ts.Data)); err != nil {
			err = fmt.Errorf("%s: %v", ts.Where, err)
		} else if src.file.Empty() {
			src.close()
			continue
		} else {
			err = adoptableName(src)
		}
		srcs = append(srcs, src)
		if err != nil {
			closeAll(srcs)
			return nil, err
		}
	}
	return srcs, nil
}

func closeAll(srcs []*terraformSource) {
	for _, s := range srcs {
		s.close()
	}
}

// adoptTerraform offers, at the end of init, to take over the state of a
// folder Terraform manages: every Terraform workspace into Tether's
// workspace of the same name, created where missing. A Tether workspace
// that already records something keeps it, and that Terraform workspace
// is left as it is, with a warning. forceCopy answers yes without asking
// (as Terraform's init -force-copy does for its state migrations);
// without it, init asks on a terminal and otherwise fails, so that a
// script never leaves half of its infrastructure to each tool by
// accident. It returns the exit code to stop with, or -1 to go on.
func (e *env) adoptTerraform(ctx context.Context, forceCopy, input bool) int {
	srcs, err := e.terraformStates(ctx)
	defer closeAll(srcs)
	if err != nil {
		return e.errorf("%v", err)
	}
	var todo []*terraformSource
	for _, src := range srcs {
		// Terraform's state where Tether's would be (S3) is Tether's
		// workspace recording nothing yet.
		if n, err := e.recordedCount(ctx, src.workspace); err != nil && !errors.Is(err, errNoState) && !errors.Is(err, backend.ErrTerraformHere) {
			return e.errorf("%v", err)
		} else if n > 0 {
			fmt.Fprintf(e.stderr, "Warning: %s is here too, but Tether's workspace %q already records %d objects and outputs: it was not adopted. To replace Tether's state with it, write it to a file and run: tether state push FILE\n",
				src.where, src.workspace, n)
			continue
		}
		todo = append(todo, src)
	}
	if len(todo) == 0 {
		return -1
	}
	var wheres []string
	for _, src := range todo {
		f := src.file
		instances, results := 0, 0
		for _, r := range f.Resources {
			if r.Mode == "data" {
				results += len(r.Instances)
			} else {
				instances += len(r.Instances)
			}
		}
		fmt.Fprintf(e.stdout, "\nTerraform state found: %s records %s (lineage %s, serial %d).\n",
			src.where, replaced{instances, results, len(f.Outputs)}, f.Lineage, f.Serial)
		wheres = append(wheres, src.where)
	}
	if !forceCopy {
		if err := e.askAdopt(strings.Join(wheres, ", "), input); err != nil {
			return e.errorf("%v", err)
		}
	}
	for _, src := range todo {
		if code := e.adoptWorkspace(ctx, src); code >= 0 {
			return code
		}
	}
	return -1
}

// adoptWorkspace takes over one Terraform workspace's state into Tether's
// workspace of the same name, creating it where missing.
func (e *env) adoptWorkspace(ctx context.Context, src *terraformSource) int {
	if err := e.ensureWorkspace(ctx, src.workspace); err != nil {
		return e.errorf("%v", err)
	}
	store, err := e.openStore(ctx, src.workspace, true)
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
		return e.errorf("Tether's workspace %q was written to while init asked; %s was not adopted", src.workspace, src.where)
	}
	n, code := e.replaceState(ctx, store, src.file)
	if code >= 0 {
		return code
	}
	adopted, err := src.setAside(ctx)
	if err != nil {
		return e.errorf("Tether now holds the state, but %s could not be set aside: %v; move or remove it yourself, so that terraform does not use it", src.where, err)
	}
	into := ""
	if src.workspace != backend.DefaultWorkspace {
		into = fmt.Sprintf(" into workspace %q", src.workspace)
	}
	fmt.Fprintf(e.stdout, "Tether took over %s%s; %s is now %s.\n", n, into, src.where, adopted)
	return -1
}

// ensureWorkspace creates a workspace of the folder's backend unless it
// exists.
func (e *env) ensureWorkspace(ctx context.Context, ws string) error {
	b, err := e.openFolderBackend(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.NewWorkspace(ctx, ws); err != nil && !errors.Is(err, backend.ErrWorkspaceExists) {
		return err
	}
	return nil
}

// recordedCount counts the objects and outputs in a workspace's state.
func (e *env) recordedCount(ctx context.Context, ws string) (int, error) {
	store, err := e.openStore(ctx, ws, false)
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
	if !e.answeredYes(fmt.Sprintf(`
Do you want Tether to take over this state?
  Tether copies every resource instance and output into its own state,
  sealing sensitive values, and sets %s aside
  (a file is renamed, a PostgreSQL row moved to tether_terraform_adopted,
  an S3 object moved to KEY.terraform-adopted-TIMESTAMP, an http
  backend's copied to .tether/terraform-adopted-WORKSPACE.tfstate).
  Terraform should not manage this folder afterwards; "tether state pull"
  writes the state back in Terraform's format.
  Only 'yes' will be accepted to approve.

  Enter a value: `, where)) {
		return fmt.Errorf("cancelled: the answer was not 'yes'; %s was left as it is and Tether's state is empty", where)
	}
	return nil
}

// replaced counts what a state brought in records.
type replaced struct{ objects, dataSources, outputs int }

// String says it as the messages of init and state push do, naming data
// source results only when there are any.
func (r replaced) String() string {
	if r.dataSources == 0 {
		return fmt.Sprintf("%d resource instances and %d outputs", r.objects, r.outputs)
	}
	return fmt.Sprintf("%d resource instances, %d data source results and %d outputs", r.objects, r.dataSources, r.outputs)
}

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
	n := replaced{outputs: len(ch.PutOutputs)}
	for _, o := range ch.Put {
		if o.Mode == state.Data {
			n.dataSources++
		} else {
			n.objects++
		}
	}
	return n, -1
}

// errNoState is openStore's error for a workspace with no state yet.
var errNoState = errors.New("no state here: nothing has been applied yet")

// openStore opens the state of workspace ws ("" for the selected one) in
// the folder's backend (see internal/backend), creating it when create is
// set.
func (e *env) openStore(ctx context.Context, ws string, create bool) (state.Store, error) {
	b, err := e.openFolderBackend(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if ws == "" {
		if ws, err = backend.Selected(stateDir); err != nil {
			return nil, err
		}
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
// configuration (for a Go program not loaded in this run, what init
// recorded).
func (e *env) openFolderBackend(ctx context.Context) (*backend.Backend, error) {
	var block *config.Backend
	if e.unloadedProgram() {
		settings, err := settledSettings()
		if err != nil {
			return nil, err
		}
		return backend.Open(ctx, stateDir, settings)
	}
	if e.src == nil {
		b, diags := hclconfig.Backend(".", hclconfig.Options{Environ: os.Environ()})
		if diags.HasErrors() {
			return nil, diags
		}
		block = b
	} else {
		block = e.program.backend
	}
	settings, err := backend.Resolve(stateDir, block)
	if err != nil {
		return nil, err
	}
	return backend.Open(ctx, stateDir, settings)
}

// statePull writes the state in Terraform's format (version 4) to
// stdout, sensitive values in clear text, as Terraform keeps them; never
// a referenced value (see engine.ToTerraform), and it says on stderr which
// objects' private data it left out for holding one.
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
	f, withheld, err := engine.ToTerraform(keys, pool.factory(), snap)
	if err != nil {
		return e.errorf("cannot write the state in Terraform's format: %v", err)
	}
	if err := tfstate.Write(e.stdout, f); err != nil {
		return e.errorf("%v", err)
	}
	for _, a := range withheld {
		fmt.Fprintf(e.stderr, "Warning: %s is written without its provider's private data, which holds a value resolved from a reference: "+
			"Tether never writes one out. Terraform gives the provider no private data for it, as for an object terraform import brought in; "+
			"pushed back with tether state push, it has none in Tether either.\n", a)
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
	fmt.Fprintf(e.stdout, "Pushed %s (lineage %s, serial %d).\n", n, f.Lineage, f.Serial)
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
		cur, _, err := engine.ToTerraform(keys, pool.factory(), snap)
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
