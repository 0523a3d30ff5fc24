package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tetherhq/tether/internal/durable"
	"github.com/tetherhq/tether/internal/state"
)

// Migrate copies every workspace's state from one backend to another, as
// tether init -migrate-state does. Both sides are locked throughout. The
// destination takes the source's id, so the key that sealed its values
// still opens them. A destination workspace must be empty, or hold exactly
// what the source holds (a migration that was interrupted after copying):
// anything else is refused before a row is written, since it would be
// lost. It returns the workspaces moved.
func Migrate(ctx context.Context, from, to *Backend) ([]string, error) {
	names, err := from.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	type side struct {
		store  state.Store
		unlock state.Unlocker
		snap   *state.Snapshot
	}
	var opened []*side
	defer func() {
		for _, s := range opened {
			if s.unlock != nil {
				s.unlock.Unlock()
			}
			s.store.Close()
		}
	}()
	open := func(b *Backend, ws string) (*side, error) {
		st, err := b.State(ctx, ws)
		if err != nil {
			return nil, err
		}
		s := &side{store: st}
		opened = append(opened, s)
		if s.unlock, err = st.Lock(ctx, state.LockInfo{Operation: "init -migrate-state"}); err != nil {
			return nil, err
		}
		s.snap, err = st.Load(ctx)
		return s, err
	}
	// Every workspace the destination has is checked before anything is
	// written there; the missing ones are created after.
	srcs, dsts := map[string]*side{}, map[string]*side{}
	var missing []string
	for _, ws := range names {
		if srcs[ws], err = open(from, ws); err != nil {
			return nil, err
		}
		exists, err := to.HasWorkspace(ctx, ws)
		if err != nil {
			return nil, err
		}
		if !exists {
			missing = append(missing, ws)
			continue
		}
		if dsts[ws], err = open(to, ws); err != nil {
			return nil, err
		}
		if d := dsts[ws].snap; !empty(d) && !same(d, srcs[ws].snap) {
			return nil, fmt.Errorf("%s already holds other state in workspace %q (%d objects); Tether will not overwrite it. Move it away, or choose it as it is with tether init -reconfigure", to.Describe(), ws, len(d.Objects))
		}
	}
	for _, ws := range missing {
		if err := to.NewWorkspace(ctx, ws); err != nil && !errors.Is(err, ErrWorkspaceExists) {
			return nil, err
		}
		if dsts[ws], err = open(to, ws); err != nil {
			return nil, err
		}
	}
	id, err := from.ID()
	if err != nil {
		return nil, err
	}
	if cur, err := to.ID(); err != nil || cur != id {
		if err := to.SetID(ctx, id); err != nil {
			return nil, err
		}
	}
	for _, ws := range names {
		src := srcs[ws].snap
		// The state keeps its lineage and serial wherever it is kept.
		c := state.Changes{Lineage: src.Lineage, Serial: src.Serial, Checks: src.Checks}
		for _, o := range src.Objects {
			c.Put = append(c.Put, o)
		}
		for _, o := range src.Outputs {
			c.PutOutputs = append(c.PutOutputs, o)
		}
		if err := dsts[ws].store.Commit(ctx, c); err != nil {
			return nil, fmt.Errorf("copying workspace %q: %w", ws, err)
		}
	}
	return names, nil
}

func empty(s *state.Snapshot) bool { return len(s.Objects) == 0 && len(s.Outputs) == 0 }

// same reports whether two snapshots record the same objects and outputs.
func same(a, b *state.Snapshot) bool {
	if len(a.Objects) != len(b.Objects) || len(a.Outputs) != len(b.Outputs) {
		return false
	}
	for k, x := range a.Objects {
		y, ok := b.Objects[k]
		if !ok || x.Mode != y.Mode || x.Type != y.Type || x.Provider != y.Provider || x.SchemaVersion != y.SchemaVersion ||
			!bytes.Equal(x.Value, y.Value) || !bytes.Equal(x.Private, y.Private) || !bytes.Equal(x.Sensitive, y.Sensitive) ||
			x.Status != y.Status || x.CreateBeforeDestroy != y.CreateBeforeDestroy || fmt.Sprint(x.Dependencies) != fmt.Sprint(y.Dependencies) {
			return false
		}
	}
	for k, x := range a.Outputs {
		y, ok := b.Outputs[k]
		if !ok || x.Sensitive != y.Sensitive || !bytes.Equal(x.Value, y.Value) {
			return false
		}
	}
	return true
}

// Copied reports whether to holds everything from records, workspace by
// workspace, and from records something: then from is a copy left behind
// by a migration that was killed after recording to as the backend and
// before setting from aside, and setting it aside loses nothing.
func Copied(ctx context.Context, from, to *Backend) (bool, error) {
	names, err := from.Workspaces(ctx)
	if err != nil {
		return false, err
	}
	found := false
	for _, ws := range names {
		if ok, err := from.StateExists(ctx, ws); err != nil || !ok {
			if err != nil {
				return false, err
			}
			continue
		}
		src, err := from.snapshot(ctx, ws)
		if err != nil {
			return false, err
		}
		if empty(src) {
			continue
		}
		if ok, err := to.StateExists(ctx, ws); err != nil || !ok {
			return false, err
		}
		dst, err := to.snapshot(ctx, ws)
		if err != nil {
			return false, err
		}
		if !same(src, dst) {
			return false, nil
		}
		found = true
	}
	return found, nil
}

// snapshot reads a workspace's state without locking it.
func (b *Backend) snapshot(ctx context.Context, ws string) (*state.Snapshot, error) {
	st, err := b.State(ctx, ws)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Load(ctx)
}

// HasState reports whether any workspace records anything.
func (b *Backend) HasState(ctx context.Context) (bool, error) {
	names, err := b.Workspaces(ctx)
	if err != nil {
		return false, err
	}
	for _, ws := range names {
		ok, err := b.StateExists(ctx, ws)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		snap, err := b.snapshot(ctx, ws)
		if err != nil {
			return false, err
		}
		if !empty(snap) {
			return true, nil
		}
	}
	return false, nil
}

// SetAside moves a local backend's state files into
// .tether/migrated-TIMESTAMP/ once they were copied elsewhere, so that the
// folder has one state and a later migration back finds it empty; nothing
// is deleted. A PostgreSQL, S3, GCS or http source is left as it is: others
// may share it.
//
// Each step is one rename, so a kill at any moment leaves every state
// whole in one place or the other. The default workspace's file has a
// write-ahead log beside it (state.db-wal) that may hold committed
// transactions; moving the two with two renames, a kill in between would
// part them. So the log is first copied into the file and emptied
// (closing the last connection does that), and the file alone is then
// the state. The other workspaces move with their folder.
func (b *Backend) SetAside() (string, error) {
	if b.pg != nil || b.obj != nil || b.web != nil {
		return "", nil
	}
	def := b.localPath(DefaultWorkspace)
	if err := checkpoint(def); err != nil {
		return "", err
	}
	dest, err := newAsideDir(b.dir, time.Now())
	if err != nil {
		return "", err
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(def+suffix, filepath.Join(dest, filepath.Base(def)+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	if err := os.Rename(b.workspaceDir(), filepath.Join(dest, "workspaces")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	for _, d := range []string{dest, filepath.Dir(def), filepath.Dir(b.workspaceDir())} {
		if err := durable.SyncDir(d); err != nil {
			return "", err
		}
	}
	return dest, nil
}

// checkpoint copies the write-ahead log of the state file at path into
// the file, so that the file holds every committed transaction by itself,
// and fails if the log still holds any after: another process has the
// file open. A missing file is nothing to do.
func checkpoint(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	s, err := state.OpenSQLite(path)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("state file %s: its write-ahead log is still in use: another process has the state open", path)
	}
	return nil
}

// newAsideDir makes a folder of its own under dir for SetAside, named after
// now. Two migrations in the same second (there and back in a script) must
// not share one, or the second's rename finds the first's files in the
// way: os.Mkdir fails on an existing name, and a suffix is tried instead.
func newAsideDir(dir string, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	base := filepath.Join(dir, "migrated-"+now.UTC().Format("20060102T150405Z"))
	for i := 1; ; i++ {
		dest := base
		if i > 1 {
			dest = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dest, 0o700)
		if err == nil {
			return dest, nil
		}
		if !errors.Is(err, os.ErrExist) || i == 100 {
			return "", err
		}
	}
}
