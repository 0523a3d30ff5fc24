package tfstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
)

// Version is the only state format version this package reads and writes.
const Version = 4

// File is a Terraform state file.
type File struct {
	Version          int               `json:"version"`
	TerraformVersion string            `json:"terraform_version"`
	Serial           uint64            `json:"serial"`
	Lineage          string            `json:"lineage"`
	Outputs          map[string]Output `json:"outputs"`
	Resources        []Resource        `json:"resources"`
	// CheckResults are the results of check blocks, conditions and
	// validation rules of the last apply; null when there are none.
	CheckResults []checks.Result `json:"check_results"`
}

// Empty reports whether the file records nothing: no resource, no
// output (as Terraform writes a new workspace's state).
func (f *File) Empty() bool {
	return len(f.Resources) == 0 && len(f.Outputs) == 0
}

// Output is a root module output.
type Output struct {
	Value     json.RawMessage `json:"value"`
	Type      json.RawMessage `json:"type"`
	Sensitive bool            `json:"sensitive,omitempty"`
}

// Resource is one resource (or data source) of one module instance, with
// all its instances.
type Resource struct {
	Module string `json:"module,omitempty"`
	Mode   string `json:"mode"` // "managed" or "data"
	Type   string `json:"type"`
	Name   string `json:"name"`
	// Each is "list" or "map" in files of Terraform before 0.13; later
	// versions no longer write it.
	Each      string     `json:"each,omitempty"`
	Provider  string     `json:"provider"`
	Instances []Instance `json:"instances"`
}

// Instance is one object of a resource.
type Instance struct {
	// IndexKey is the count index (a number) or for_each key (a string);
	// absent for a resource without either.
	IndexKey json.RawMessage `json:"index_key,omitempty"`
	Status   string          `json:"status,omitempty"` // "tainted" or absent
	// Deposed is set on an object a create_before_destroy replacement
	// put aside and has yet to destroy.
	Deposed       string          `json:"deposed,omitempty"`
	SchemaVersion uint64          `json:"schema_version"`
	Attributes    json.RawMessage `json:"attributes,omitempty"`
	// AttributesFlat is the form of Terraform before 0.12.
	AttributesFlat      map[string]string `json:"attributes_flat,omitempty"`
	SensitiveAttributes json.RawMessage   `json:"sensitive_attributes,omitempty"`
	// Identity is a resource identity, written by Terraform 1.12 and
	// later.
	IdentitySchemaVersion *uint64         `json:"identity_schema_version,omitempty"`
	Identity              json.RawMessage `json:"identity,omitempty"`
	// Private is the provider's private data, verbatim (base64 in JSON).
	Private             []byte   `json:"private,omitempty"`
	Dependencies        []string `json:"dependencies,omitempty"`
	CreateBeforeDestroy bool     `json:"create_before_destroy,omitempty"`
}

// Read parses a state file. It refuses a file of another format version,
// and fields it does not know, rather than drop what they hold.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var v struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("not a Terraform state file: %v", err)
	}
	switch {
	case v.Version == nil:
		return nil, errors.New("not a Terraform state file: it has no \"version\"")
	case *v.Version != Version:
		return nil, fmt.Errorf("it is Terraform state format version %d; Tether reads only version %d, which Terraform 0.12 and later write: run any terraform 1.x command that writes state (terraform apply -refresh-only) to upgrade it", *v.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("cannot read it as Terraform state version %d: %v", Version, err)
	}
	if f.Lineage == "" {
		return nil, errors.New("it has no lineage")
	}
	if f.CheckResults, err = checks.Clean(f.CheckResults); err != nil {
		return nil, err
	}
	return &f, nil
}

// Write writes f as Terraform does: indented by two spaces, resources in
// order of module, mode, type and name, and a final newline.
func Write(w io.Writer, f *File) error {
	sort.SliceStable(f.Resources, func(i, j int) bool {
		a, b := f.Resources[i], f.Resources[j]
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Name < b.Name
	})
	if f.Outputs == nil {
		f.Outputs = map[string]Output{}
	}
	if f.Resources == nil {
		f.Resources = []Resource{}
	}
	checks.Sort(f.CheckResults)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Address is the absolute address of one instance of r, as Tether and
// Terraform write it: `module.net["a"].tether_file.conf[0]`.
func (r *Resource) Address(inst *Instance) (string, error) {
	rel := r.Type + "." + r.Name
	switch r.Mode {
	case "managed":
	case "data":
		rel = "data." + rel
	default:
		return "", fmt.Errorf("resource %s.%s has an unknown mode %q", r.Type, r.Name, r.Mode)
	}
	if len(inst.IndexKey) > 0 {
		k, err := indexKey(inst.IndexKey)
		if err != nil {
			return "", fmt.Errorf("resource %s has an instance key %s that is neither a whole number nor a string", addr.Join(r.Module, rel), inst.IndexKey)
		}
		rel += addr.KeyString(k)
	}
	a := addr.Join(r.Module, rel)
	if _, err := addr.ParseInstance(a); err != nil {
		return "", err
	}
	return a, nil
}

// indexKey reads an index_key: a count index or a for_each key.
func indexKey(raw json.RawMessage) (cty.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var k any
	if err := dec.Decode(&k); err != nil {
		return cty.NilVal, err
	}
	switch k := k.(type) {
	case string:
		return cty.StringVal(k), nil
	case json.Number:
		n, err := k.Int64()
		if err != nil || n < 0 {
			return cty.NilVal, fmt.Errorf("not a count index")
		}
		return cty.NumberIntVal(n), nil
	}
	return cty.NilVal, fmt.Errorf("neither a number nor a string")
}

// Split is the inverse of Address: the module instance path, mode, type,
// name and index key (nil when none) of an instance address.
func Split(address string) (module, mode, typ, name string, key json.RawMessage, err error) {
	ia, err := addr.ParseInstance(address)
	if err != nil {
		return "", "", "", "", nil, err
	}
	module = addr.ModulePath(ia.Module)
	mode = "managed"
	rest := ia.Resource
	if r, ok := strings.CutPrefix(rest, "data."); ok {
		mode, rest = "data", r
	}
	typ, name, ok := strings.Cut(rest, ".")
	if !ok {
		return "", "", "", "", nil, fmt.Errorf("%s is not a resource instance address", address)
	}
	if ia.Key != cty.NilVal && !ia.Key.IsNull() {
		// A key is a number or a string; both marshal as plain JSON.
		key, err = ctyjson.Marshal(ia.Key, ia.Key.Type())
		if err != nil {
			return "", "", "", "", nil, err
		}
	}
	return module, mode, typ, name, key, nil
}
