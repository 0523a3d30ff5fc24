package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tetherhq/tether/internal/durable"
	"golang.org/x/mod/sumdb/dirhash"
)

// Two hash schemes appear in lock files, as in Terraform:
//
//   - "h1:" is dirhash's Hash1 over the files of the unpacked package (for a
//     zip, over its entries, which gives the same value), so it can be
//     checked against an installed folder;
//   - "zh:" is the hex SHA-256 of a release zip, as listed in the registry's
//     SHA256SUMS; it can only be checked against the zip itself.

// hashDir is the h1 hash of an unpacked package folder. A symlink to the
// folder (a plugin cache link) is followed.
func hashDir(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return dirhash.HashDir(real, "", dirhash.Hash1)
}

// zipSHA256 is the "zh:" hash of a release zip.
func zipSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "zh:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashCacheFile, under the providers folder, remembers the h1 hash of each
// installed package with the size and modification time of every file in
// it, so that Ensure need not read a 700 MB binary on every plan. Any
// change to a file's size or time, or a file added or removed, makes the
// entry stale and the folder is hashed again.
const hashCacheFile = ".hashes.json"

type hashCacheEntry struct {
	Files map[string]fileStamp `json:"files"`
	H1    string               `json:"h1"`
}

type fileStamp struct {
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime_ns"`
}

// hashCache is the in-memory form of hashCacheFile. It is safe for
// concurrent use.
type hashCache struct {
	mu      sync.Mutex
	path    string
	entries map[string]hashCacheEntry // by package folder, relative to the providers folder
	dirty   bool
}

func openHashCache(providersDir string) *hashCache {
	c := &hashCache{path: filepath.Join(providersDir, hashCacheFile), entries: map[string]hashCacheEntry{}}
	if data, err := os.ReadFile(c.path); err == nil {
		// A corrupt cache is only a cache: start empty.
		_ = json.Unmarshal(data, &c.entries)
	}
	return c
}

// h1 returns the h1 hash of the package folder dir (inside the providers
// folder), from the cache when no file changed since it was computed.
func (c *hashCache) h1(dir string) (string, error) {
	key, _ := filepath.Rel(filepath.Dir(c.path), dir)
	stamps, err := stampFiles(dir)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && sameStamps(e.Files, stamps) {
		return e.H1, nil
	}
	h, err := hashDir(dir)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.entries[key] = hashCacheEntry{Files: stamps, H1: h}
	c.dirty = true
	c.mu.Unlock()
	return h, nil
}

// save writes the cache back when it changed. Failing to write it only
// costs time on the next run, so the error is dropped.
func (c *hashCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	data, err := json.MarshalIndent(c.entries, "", "  ")
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o755) == nil {
		_ = durable.WriteFile(c.path, data, 0o644)
	}
	c.dirty = false
}

func stampFiles(dir string) (map[string]fileStamp, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]fileStamp{}
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, path)
		out[filepath.ToSlash(rel)] = fileStamp{Size: info.Size(), MTime: info.ModTime().UnixNano()}
		return nil
	})
	return out, err
}

func sameStamps(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// h1Hashes returns the h1 hashes among hashes.
func h1Hashes(hashes []string) []string {
	var out []string
	for _, h := range hashes {
		if strings.HasPrefix(h, "h1:") {
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hashMismatch describes a package whose hash is not among those locked.
func hashMismatch(what string, locked []string, got string) string {
	want := h1Hashes(locked)
	if len(want) == 0 {
		want = locked
	}
	return fmt.Sprintf("%s has hash %s, but the dependency lock file allows only %s", what, got, strings.Join(want, ", "))
}

// put records h as the h1 hash of the package folder dir as it is now.
func (c *hashCache) put(dir, h string) {
	stamps, err := stampFiles(dir)
	if err != nil {
		return
	}
	key, _ := filepath.Rel(filepath.Dir(c.path), dir)
	c.mu.Lock()
	c.entries[key] = hashCacheEntry{Files: stamps, H1: h}
	c.dirty = true
	c.mu.Unlock()
}
