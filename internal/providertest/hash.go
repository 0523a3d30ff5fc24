package providertest

import (
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/dirhash"
)

// h1OfZip is the "h1:" hash of a package zip held in memory.
func h1OfZip(z []byte) (string, error) {
	dir, err := os.MkdirTemp("", "providertest-zip-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.zip")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		return "", err
	}
	return dirhash.HashZip(path, dirhash.Hash1)
}

// H1 is the "h1:" hash of p's package, as a lock file records it.
func (p Provider) H1() (string, error) {
	z, err := p.Zip()
	if err != nil {
		return "", err
	}
	return h1OfZip(z)
}
