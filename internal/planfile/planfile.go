package planfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// formatVersion is the version of the file's layout.
const formatVersion = 1

// File is a saved plan.
type File struct {
	// Created is when the plan was made.
	Created time.Time `json:"created"`
	// State and Plan are keyed digests of the state the plan was made
	// from and of the plan (see Digest); Config has one per configuration
	// file, by name.
	State  string            `json:"state"`
	Config map[string]string `json:"config"`
	Plan   string            `json:"plan"`
	// Options are the plan's options, so that applying plans the same.
	Options Options `json:"options"`
	// Vars are the -var and -var-file arguments, and Environ the TF_VAR_
	// variables, the plan was made with.
	Vars    []Var    `json:"vars,omitempty"`
	Environ []string `json:"environ,omitempty"`
	// JSON is the plan in Terraform's JSON representation, and Text as
	// plan showed it, without colours.
	JSON json.RawMessage `json:"json"`
	Text string          `json:"text"`
}

// Options are the plan's options.
type Options struct {
	Destroy     bool     `json:"destroy,omitempty"`
	SkipRefresh bool     `json:"skip_refresh,omitempty"`
	RefreshOnly bool     `json:"refresh_only,omitempty"`
	Targets     []string `json:"targets,omitempty"`
	Excludes    []string `json:"excludes,omitempty"`
	Replace     []string `json:"replace,omitempty"`
}

// Var is one -var (Name and Value) or -var-file (File) argument.
type Var struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
	File  string `json:"file,omitempty"`
}

// header is the part of the file in the clear: enough to recognise it
// and say which Tether wrote it.
type header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Tether  string `json:"tether_version"`
	Sealed  []byte `json:"sealed"`
}

const formatName = "tether-plan"

// Write writes f to path, readable by its owner only.
func Write(path string, f *File, keys *secrets.Keys, tetherVersion string) error {
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(header{Format: formatName, Version: formatVersion, Tether: tetherVersion, Sealed: keys.Seal(body)}, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot write the plan file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write the plan file: %w", err)
	}
	return nil
}

// ErrNotPlan is returned for a file that is not a saved plan of Tether's.
var ErrNotPlan = errors.New("not a Tether plan file")

// Read reads a saved plan, opening it with keys.
func Read(path string, keys *secrets.Keys) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h header
	if err := json.Unmarshal(raw, &h); err != nil || h.Format != formatName {
		return nil, fmt.Errorf("%s: %w (a file written by tether plan -out; Terraform's plan files are not read)", path, ErrNotPlan)
	}
	if h.Version != formatVersion {
		return nil, fmt.Errorf("%s was written by Tether %s in plan file format %d, which this Tether (format %d) does not read: make the plan again", path, h.Tether, h.Version, formatVersion)
	}
	body, err := keys.Open(h.Sealed)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be opened with this state's key: it was made for another state, or the key changed (%v)", path, err)
	}
	if !secrets.IsSealed(h.Sealed) {
		return nil, fmt.Errorf("%s: %w (its contents are not sealed)", path, ErrNotPlan)
	}
	var f File
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", path, err)
	}
	return &f, nil
}

// StateDigest is the keyed digest of everything state records: any change
// to an object, its status or an output changes it.
func StateDigest(keys *secrets.Keys, snap *state.Snapshot) (string, error) {
	objs := make([]*state.Object, 0, len(snap.Objects))
	for _, o := range snap.Objects {
		objs = append(objs, o)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Address < objs[j].Address })
	outs := make([]*state.Output, 0, len(snap.Outputs))
	for _, o := range snap.Outputs {
		outs = append(outs, o)
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Name < outs[j].Name })
	raw, err := json.Marshal(struct {
		Objects []*state.Object
		Outputs []*state.Output
	}{objs, outs})
	if err != nil {
		return "", err
	}
	return keys.Hash(raw), nil
}

// ConfigDigests are the keyed digests of the configuration's files.
func ConfigDigests(keys *secrets.Keys, sources map[string][]byte) map[string]string {
	out := make(map[string]string, len(sources))
	for name, src := range sources {
		out[name] = keys.Hash(src)
	}
	return out
}

// ConfigChanges lists the files that differ between two sets of digests:
// changed, added or removed.
func ConfigChanges(saved, now map[string]string) []string {
	var out []string
	for name, d := range saved {
		if now[name] != d {
			out = append(out, name)
		}
	}
	for name := range now {
		if _, ok := saved[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
