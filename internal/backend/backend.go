package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/azstate"
	"github.com/tetherhq/tether/internal/state/gcsstate"
	"github.com/tetherhq/tether/internal/state/httpstate"
	"github.com/tetherhq/tether/internal/state/objstate"
	"github.com/tetherhq/tether/internal/state/pgstate"
	"github.com/tetherhq/tether/internal/state/s3state"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = "default"

// Backend is an opened backend.
type Backend struct {
	Settings Settings
	// dir is the state folder (.tether): the local backend's states, the
	// local state's id, the recorded settings and workspace.
	dir string
	pg  *pgstate.Backend
	// obj is an object-store backend (s3, gcs, azurerm): internal/state/objstate
	// behind the backend's adapter.
	obj objBackend
	web *httpstate.Backend
	// id is the http backend's state id, read at Open.
	id string
}

// objBackend is what the object-store backends (s3state, gcsstate, azstate) share
// through internal/state/objstate.
type objBackend interface {
	Where() string
	Close() error
	ID() string
	SetID(ctx context.Context, id string) error
	Workspaces(ctx context.Context) ([]string, error)
	NewWorkspace(ctx context.Context, ws string) error
	DeleteWorkspace(ctx context.Context, ws string, force bool) error
	StateExists(ctx context.Context, ws string) (bool, error)
	Open(ctx context.Context, ws string) (state.Store, error)
	TerraformState(ctx context.Context, ws string) (*objstate.TerraformState, error)
}

// objectStores open the object-store backends by type: each reads its
// settings (and, where they leave an argument out, the environment) and
// connects.
var objectStores = map[string]func(context.Context, map[string]string) (objBackend, error){
	"s3":      connectWith(s3state.FromSettings, s3state.Connect),
	"gcs":     connectWith(gcsstate.FromSettings, gcsstate.Connect),
	"azurerm": connectWith(azstate.FromSettings, azstate.Connect),
}

func connectWith[C any, B objBackend](read func(map[string]string, func(string) string) (C, error), connect func(context.Context, C) (B, error)) func(context.Context, map[string]string) (objBackend, error) {
	return func(ctx context.Context, settings map[string]string) (objBackend, error) {
		cfg, err := read(settings, os.Getenv)
		if err != nil {
			return nil, err
		}
		b, err := connect(ctx, cfg)
		if err != nil {
			// Not b: a nil *Backend in the interface would not be nil.
			return nil, err
		}
		return b, nil
	}
}

// Open opens the backend s chooses. For pg it connects and prepares the
// schema; the connection string and schema come from the settings, else
// from PG_CONN_STR and PG_SCHEMA_NAME, as with Terraform's pg backend.
func Open(ctx context.Context, stateDir string, s Settings) (*Backend, error) {
	return open(ctx, stateDir, s, false)
}

// OpenForReading opens a backend to read another configuration's state:
// it creates nothing (no PostgreSQL tables), and a pg schema without
// Tether's tables has no workspace.
func OpenForReading(ctx context.Context, stateDir string, s Settings) (*Backend, error) {
	return open(ctx, stateDir, s, true)
}

func open(ctx context.Context, stateDir string, s Settings, readOnly bool) (*Backend, error) {
	b := &Backend{Settings: s, dir: stateDir}
	if connect, ok := objectStores[s.Type]; ok {
		var err error
		if b.obj, err = connect(ctx, s.Config); err != nil {
			return nil, err
		}
		return b, nil
	}
	if s.Type == "http" {
		cfg, err := httpstate.FromSettings(s.Config, os.Getenv)
		if err != nil {
			return nil, err
		}
		if b.web, err = httpstate.Connect(ctx, cfg, stateDir); err != nil {
			return nil, err
		}
		if b.id, err = b.web.ID(ctx); err != nil {
			return nil, err
		}
		return b, nil
	}
	if s.Type != "pg" {
		return b, nil
	}
	cfg := pgstate.Config{ConnStr: s.Config["conn_str"], Schema: s.Config["schema_name"], SkipSchemaCreation: s.Config["skip_schema_creation"] == "true", ReadOnly: readOnly}
	if cfg.ConnStr == "" {
		cfg.ConnStr = os.Getenv("PG_CONN_STR")
	}
	if cfg.Schema == "" {
		cfg.Schema = os.Getenv("PG_SCHEMA_NAME")
	}
	if cfg.ConnStr == "" {
		return nil, errors.New(`the "pg" backend needs a connection string: set conn_str in the backend block, give it to tether init with -backend-config conn_str=..., or set PG_CONN_STR`)
	}
	pg, err := pgstate.Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	b.pg = pg
	return b, nil
}

// Close closes the backend's connection, if any.
func (b *Backend) Close() error {
	if b.pg != nil {
		return b.pg.Close()
	}
	if b.obj != nil {
		return b.obj.Close()
	}
	return nil
}

// Describe names where state is, without credentials.
func (b *Backend) Describe() string {
	if b.pg != nil {
		return b.pg.Where()
	}
	if b.obj != nil {
		return b.obj.Where()
	}
	if b.web != nil {
		return b.web.Where()
	}
	return "the local backend (" + b.localPath(DefaultWorkspace) + ")"
}

func (b *Backend) localPath(ws string) string {
	if ws == DefaultWorkspace {
		if p := b.Settings.Config["path"]; p != "" {
			return p
		}
		return filepath.Join(b.dir, "state.db")
	}
	return filepath.Join(b.workspaceDir(), ws, "state.db")
}

func (b *Backend) workspaceDir() string {
	if d := b.Settings.Config["workspace_dir"]; d != "" {
		return d
	}
	return filepath.Join(b.dir, "workspaces")
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// CheckName refuses a workspace name that could not be a folder's name.
func CheckName(name string) error {
	if !validName.MatchString(name) || len(name) > 90 {
		return fmt.Errorf("the workspace name %q is not allowed: it must start with a letter, digit or underscore and contain only letters, digits, '_', '-' and '.'", name)
	}
	return nil
}

// Workspaces lists the workspaces, sorted; default is always among them.
func (b *Backend) Workspaces(ctx context.Context) ([]string, error) {
	if b.pg != nil {
		return b.pg.Workspaces(ctx)
	}
	if b.obj != nil {
		return b.obj.Workspaces(ctx)
	}
	if b.web != nil {
		return b.web.Workspaces(ctx)
	}
	names := []string{DefaultWorkspace}
	entries, err := os.ReadDir(b.workspaceDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != DefaultWorkspace && CheckName(e.Name()) == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// HasWorkspace reports whether a workspace exists.
func (b *Backend) HasWorkspace(ctx context.Context, name string) (bool, error) {
	names, err := b.Workspaces(ctx)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

// ErrWorkspaceExists is returned by NewWorkspace for a name in use.
var ErrWorkspaceExists = errors.New("workspace already exists")

// NewWorkspace creates an empty workspace.
func (b *Backend) NewWorkspace(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if b.pg != nil {
		err := b.pg.NewWorkspace(ctx, name)
		if errors.Is(err, pgstate.ErrWorkspaceExists) {
			return fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
		}
		return err
	}
	if b.obj != nil {
		err := b.obj.NewWorkspace(ctx, name)
		if errors.Is(err, objstate.ErrWorkspaceExists) {
			return fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
		}
		return err
	}
	if b.web != nil {
		err := b.web.NewWorkspace(ctx, name)
		if errors.Is(err, httpstate.ErrWorkspaceExists) {
			return fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
		}
		return err
	}
	if name == DefaultWorkspace {
		return fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
	}
	if err := os.MkdirAll(b.workspaceDir(), 0o700); err != nil {
		return err
	}
	err := os.Mkdir(filepath.Join(b.workspaceDir(), name), 0o700)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
	}
	return err
}

// DeleteWorkspace deletes a workspace: refused for default, for one in use
// (its lock held), and for one recording resources unless forced.
func (b *Backend) DeleteWorkspace(ctx context.Context, name string, force bool) error {
	if name == DefaultWorkspace {
		return errors.New("the default workspace cannot be deleted")
	}
	if b.pg != nil {
		return b.pg.DeleteWorkspace(ctx, name, force)
	}
	if b.obj != nil {
		return b.obj.DeleteWorkspace(ctx, name, force)
	}
	if b.web != nil {
		return b.web.DeleteWorkspace(ctx, name, force)
	}
	ok, err := b.HasWorkspace(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("workspace %q does not exist", name)
	}
	path := b.localPath(name)
	if _, err := os.Stat(path); err == nil {
		s, err := state.OpenSQLite(path)
		if err != nil {
			return err
		}
		unlock, err := s.Lock(ctx, state.LockInfo{Operation: "workspace delete"})
		if err != nil {
			s.Close()
			return err
		}
		snap, err := s.Load(ctx)
		unlock.Unlock()
		s.Close()
		if err != nil {
			return err
		}
		if n := managed(snap); n > 0 && !force {
			return fmt.Errorf("workspace %q records %d resource instance(s); deleting it would forget them without destroying them. Destroy them first (tether destroy in that workspace), or delete it anyway with -force", name, n)
		}
	}
	return os.RemoveAll(filepath.Join(b.workspaceDir(), name))
}

func managed(snap *state.Snapshot) int {
	n := 0
	for _, o := range snap.Objects {
		if o.Mode == state.Managed {
			n++
		}
	}
	return n
}

// LoadState reads workspace ws's state once and closes it: what a reader
// of another configuration's state wants. It returns nil, and no error,
// when the workspace has no state; it creates nothing.
func (b *Backend) LoadState(ctx context.Context, ws string) (*state.Snapshot, error) {
	if ok, err := b.StateExists(ctx, ws); err != nil || !ok {
		return nil, err
	}
	store, err := b.State(ctx, ws)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return store.Load(ctx)
}

// StateExists reports whether a workspace has a state to read, without
// creating one: commands that only read state refuse to make it.
func (b *Backend) StateExists(ctx context.Context, ws string) (bool, error) {
	if b.pg != nil {
		return b.HasWorkspace(ctx, ws)
	}
	if b.obj != nil {
		return b.obj.StateExists(ctx, ws)
	}
	if b.web != nil {
		return b.web.StateExists(ctx, ws)
	}
	_, err := os.Stat(b.localPath(ws))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// State opens a workspace's state. A workspace other than default must
// have been created (tether workspace new).
func (b *Backend) State(ctx context.Context, ws string) (state.Store, error) {
	return b.state(ctx, ws, state.OpenSQLite)
}

// PeekState is State, to read the state before the command's own open of
// it (see state.PeekSQLite): the platform lookup.
func (b *Backend) PeekState(ctx context.Context, ws string) (state.Store, error) {
	return b.state(ctx, ws, state.PeekSQLite)
}

// state is the workspace's state, a local file opened by open.
func (b *Backend) state(ctx context.Context, ws string, open func(string) (*state.SQLite, error)) (state.Store, error) {
	if b.pg != nil {
		return b.pg.Open(ctx, ws)
	}
	if b.obj != nil {
		st, err := b.obj.Open(ctx, ws)
		if errors.Is(err, objstate.ErrNoWorkspace) {
			return nil, fmt.Errorf("workspace %q does not exist; create it with: tether workspace new %s", ws, ws)
		}
		return st, err
	}
	if b.web != nil {
		st, err := b.web.Open(ctx, ws)
		if errors.Is(err, httpstate.ErrNoWorkspace) {
			return nil, fmt.Errorf("workspace %q does not exist; create it with: tether workspace new %s", ws, ws)
		}
		return st, err
	}
	if ws != DefaultWorkspace {
		if _, err := os.Stat(filepath.Join(b.workspaceDir(), ws)); err != nil {
			return nil, fmt.Errorf("workspace %q does not exist; create it with: tether workspace new %s", ws, ws)
		}
	}
	path := b.localPath(ws)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create state folder: %v", err)
	}
	return open(path)
}

// ID is the state's id, which names its key.
func (b *Backend) ID() (string, error) {
	if b.pg != nil {
		return b.pg.ID(), nil
	}
	if b.obj != nil {
		return b.obj.ID(), nil
	}
	if b.web != nil {
		return b.id, nil
	}
	return secrets.ID(b.dir)
}

// SetID gives the backend's state the id of state moved into it.
func (b *Backend) SetID(ctx context.Context, id string) error {
	if b.pg != nil {
		return b.pg.SetID(ctx, id)
	}
	if b.obj != nil {
		return b.obj.SetID(ctx, id)
	}
	if b.web != nil {
		if err := b.web.SetID(ctx, id); err != nil {
			return err
		}
		b.id = id
		return nil
	}
	return secrets.SetID(b.dir, id)
}

// Keys returns the key of the backend's state (all workspaces share it).
func (b *Backend) Keys() (*secrets.Keys, error) {
	if b.pg != nil {
		return secrets.LoadID(b.pg.ID())
	}
	if b.obj != nil {
		return secrets.LoadID(b.obj.ID())
	}
	if b.web != nil {
		return secrets.LoadID(b.id)
	}
	return secrets.Load(b.dir)
}

// TerraformWorkspaces lists, sorted, the workspaces whose state Terraform
// keeps where this backend keeps Tether's: its pg backend's rows in the
// same schema, its s3 backend's objects at the same key. None on a local
// backend, whose Terraform workspaces are files of the configuration
// folder.
func (b *Backend) TerraformWorkspaces(ctx context.Context) ([]string, error) {
	if b.pg != nil {
		return b.pg.TerraformWorkspaces(ctx)
	}
	if b.obj != nil {
		return b.obj.Workspaces(ctx)
	}
	if b.web != nil {
		return b.web.Workspaces(ctx)
	}
	return nil, nil
}

// ErrTerraformHere is matched by the error of reading a workspace whose
// place holds Terraform's state, not yet taken over (on S3, Terraform's
// object at the key).
var ErrTerraformHere = objstate.ErrTerraformHere

// TerraformState is the state Terraform keeps for one workspace, offered
// for takeover.
type TerraformState struct {
	// Data is the state document as Terraform wrote it.
	Data []byte
	// Where names it, for messages.
	Where    string
	setAside func(context.Context) (string, error)
	release  func()
}

// SetAside puts Terraform's state out of Terraform's way once Tether holds
// the state, and says where it went.
func (t *TerraformState) SetAside(ctx context.Context) (string, error) { return t.setAside(ctx) }

// Release lets go of it (Terraform's lock on a PostgreSQL row).
func (t *TerraformState) Release() { t.release() }

// TerraformState returns the state Terraform keeps for workspace ws where
// this backend keeps Tether's, or nil when there is none. A local backend
// has none here: Terraform's local state is terraform.tfstate in the
// configuration folder.
func (b *Backend) TerraformState(ctx context.Context, ws string) (*TerraformState, error) {
	switch {
	case b.pg != nil:
		ts, err := b.pg.TerraformState(ctx, ws)
		if ts == nil || err != nil {
			return nil, err
		}
		return &TerraformState{Data: ts.Data, Where: ts.Where, setAside: ts.SetAside, release: ts.Release}, nil
	case b.obj != nil:
		ts, err := b.obj.TerraformState(ctx, ws)
		if ts == nil || err != nil {
			return nil, err
		}
		return &TerraformState{Data: ts.Data, Where: ts.Where, setAside: ts.SetAside, release: func() {}}, nil
	case b.web != nil:
		ts, err := b.web.TerraformState(ctx, ws)
		if ts == nil || err != nil {
			return nil, err
		}
		return &TerraformState{Data: ts.Data, Where: ts.Where, setAside: ts.SetAside, release: func() {}}, nil
	}
	return nil, nil
}
