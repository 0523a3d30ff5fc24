package install

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// stage makes a temporary sibling of final holding the package f, unzipped
// or copied. The caller verifies it and then commits or removes it, so a
// failure never leaves a half-installed package at final.
func stage(f *fetched, final string) (string, error) {
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(final)+".new-")
	if err != nil {
		return "", err
	}
	if f.zip != "" {
		err = unzip(f.zip, tmp)
	} else {
		err = copyDir(f.dir, tmp)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// commit moves the staged folder (or symlink) tmp to final, replacing
// whatever was there.
func commit(tmp, final string) error {
	var old string
	if _, err := os.Lstat(final); err == nil {
		old = fmt.Sprintf("%s.old-%d", final, os.Getpid())
		os.RemoveAll(old)
		if err := os.Rename(final, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			os.Rename(old, final)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// unzip extracts the zip at path into dir, keeping file modes. Entries that
// would land outside dir, and symlinks, are refused.
func unzip(path, dir string) error {
	r, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("the package %s is not a valid zip: %w", filepath.Base(path), err)
	}
	defer r.Close()
	for _, f := range r.File {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("the package %s has an entry %q outside its folder", filepath.Base(path), f.Name)
		}
		dest := filepath.Join(dir, name)
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
			continue
		case !mode.IsRegular():
			return fmt.Errorf("the package %s has an entry %q that is not a regular file", filepath.Base(path), f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		if err := extract(f, dest, mode.Perm()|0o400); err != nil {
			return fmt.Errorf("cannot unpack %s from %s: %w", f.Name, filepath.Base(path), err)
		}
	}
	return nil
}

func extract(f *zip.File, dest string, perm fs.FileMode) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := os.OpenFile(dest, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rc)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyDir copies the regular files and folders under src into dst,
// following symlinks and keeping permissions.
func copyDir(src, dst string) error {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, path)
		target := filepath.Join(dst, rel)
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return copyFile(path, target, info.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// executableIn finds the provider binary of type typ in a package folder:
// the regular file whose name starts with "terraform-provider-TYPE".
func executableIn(dir, typ string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "terraform-provider-"+typ) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s holds no file named terraform-provider-%s*", dir, typ)
}
