package modules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Record is where one module call's files are, in the shape of an entry
// of Terraform's .terraform/modules/modules.json.
type Record struct {
	// Key is the module's path of call names from the root, joined with
	// dots: "net", "net.vpc"; "" for the root.
	Key string `json:"Key"`
	// Source is the source address as the call wrote it (evaluated).
	Source string `json:"Source"`
	// Version is the version installed from a registry, "" otherwise.
	Version string `json:"Version,omitempty"`
	// Dir is the module's folder relative to the configuration folder,
	// with forward slashes.
	Dir string `json:"Dir"`
}

// Manifest is the modules.json of a configuration folder.
type Manifest struct {
	Modules []Record `json:"Modules"`
}

// ManifestPath is where the manifest of the configuration in dir lives.
func ManifestPath(dir string) string {
	return filepath.Join(dir, ".tether", "modules", "modules.json")
}

// ReadManifest reads the manifest of the configuration in dir; none yet is
// an empty one.
func ReadManifest(dir string) (*Manifest, error) {
	src, err := os.ReadFile(ManifestPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(src, &m); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): remove it and run tether init again", ManifestPath(dir), err)
	}
	return &m, nil
}

// Write saves the manifest, records sorted by key.
func (m *Manifest) Write(dir string) error {
	sort.Slice(m.Modules, func(i, j int) bool { return m.Modules[i].Key < m.Modules[j].Key })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	p := ManifestPath(dir)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// find returns the record of key, or nil.
func (m *Manifest) find(key string) *Record {
	for i := range m.Modules {
		if m.Modules[i].Key == key {
			return &m.Modules[i]
		}
	}
	return nil
}

// put adds or replaces the record of r.Key.
func (m *Manifest) put(r Record) {
	if old := m.find(r.Key); old != nil {
		*old = r
		return
	}
	m.Modules = append(m.Modules, r)
}
