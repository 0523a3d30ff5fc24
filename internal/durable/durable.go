package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces the file at path with data, with permissions perm,
// as one step that survives a crash: the data goes to a temporary file
// beside it, which is synced, renamed over path, and the folder synced so
// that the rename itself is on disk. A crash at any moment leaves the old
// file or the new one. The folder must exist. On an error the old file is
// untouched and no temporary file is left behind.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(tmp, perm)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// SyncDir makes the entries of a folder durable: files created, renamed
// into it or out of it. Where a folder cannot be synced (Windows), it
// does nothing.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && isUnsupported(err) {
		return nil
	}
	return err
}
