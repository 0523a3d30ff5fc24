package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/tfstate"
)

// Terraform's state and Tether's record the same things: an object's
// value is in the same JSON encoding, private data and dependencies are
// verbatim, provider and instance addresses are spelled alike. What
// differs is secrecy: Terraform keeps sensitive values in clear text,
// Tether seals every object and output that holds one.

// TerraformVersion is the terraform_version written into exported state.
// No Terraform wrote the file, and Terraform refuses state from a version
// newer than itself, so it is the oldest 1.x: every Terraform 1.x reads
// it as its own.
const TerraformVersion = "1.0.0"

// Adoption is a Terraform state converted for Tether's store.
type Adoption struct {
	// Changes records every object (managed and data source result) and
	// output, with the file's lineage and serial.
	Changes state.Changes
}

// FromTerraform converts a Terraform state file into the changes that
// record it in Tether's store, sealing what is sensitive with keys (as
// apply seals it: an object with a sensitive path, given by the file or by
// its provider's schema, is sealed whole). Schemas come from providers.
// Anything Tether cannot record faithfully is an error naming the
// instance: a deposed object, an object in the pre-0.12 flat form, a
// resource identity.
func FromTerraform(keys *secrets.Keys, providers provider.Factory, f *tfstate.File) (*Adoption, error) {
	a := &Adoption{Changes: state.Changes{Lineage: f.Lineage, Serial: f.Serial}}
	// The file's check results replace what was recorded, none included.
	var err error
	if a.Changes.Checks, err = checks.Encode(f.CheckResults); err != nil {
		return nil, err
	}
	if a.Changes.Checks == nil {
		a.Changes.Checks = []byte{}
	}
	for i := range f.Resources {
		r := &f.Resources[i]
		name := r.Type + "." + r.Name
		if r.Mode == "data" {
			name = "data." + name
		}
		pc, err := addr.ParseProviderConfig(r.Provider)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %v", addr.Join(r.Module, name), err)
		}
		rs, err := resourceSchema(providers, pc, r.Mode == "data", r.Type)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %v", addr.Join(r.Module, name), err)
		}
		for j := range r.Instances {
			obj, err := adoptInstance(keys, r, &r.Instances[j], pc, rs)
			if err != nil {
				return nil, err
			}
			a.Changes.Put = append(a.Changes.Put, obj)
		}
	}
	for _, name := range sortedNames(f.Outputs) {
		o := f.Outputs[name]
		raw, err := outputFromTerraform(o)
		if err != nil {
			return nil, fmt.Errorf("output %q: %v", name, err)
		}
		a.Changes.PutOutputs = append(a.Changes.PutOutputs, &state.Output{Name: name, Value: seal(keys, raw, o.Sensitive), Sensitive: o.Sensitive})
	}
	return a, nil
}

func adoptInstance(keys *secrets.Keys, r *tfstate.Resource, inst *tfstate.Instance, pc addr.ProviderConfig, rs *provider.ResourceSchema) (*state.Object, error) {
	address, err := r.Address(inst)
	if err != nil {
		return nil, err
	}
	switch {
	case inst.Deposed != "":
		return nil, fmt.Errorf("%s has a deposed object (%s), left by a create_before_destroy replacement that did not finish; run terraform apply to finish it before Tether takes the state over", address, inst.Deposed)
	case inst.Attributes == nil && inst.AttributesFlat != nil:
		return nil, fmt.Errorf("%s is recorded in the flat form of Terraform before 0.12; run terraform apply -refresh-only with Terraform 1.x to rewrite it first", address)
	case inst.Attributes == nil:
		return nil, fmt.Errorf("%s has no attributes", address)
	case inst.Identity != nil || inst.IdentitySchemaVersion != nil:
		return nil, fmt.Errorf("%s has a resource identity (Terraform 1.12 and later), which Tether does not record yet", address)
	}
	status := state.Ready
	switch inst.Status {
	case "":
	case "tainted":
		status = state.Tainted
	default:
		return nil, fmt.Errorf("%s has an unknown status %q", address, inst.Status)
	}
	var value bytes.Buffer
	if err := json.Compact(&value, inst.Attributes); err != nil {
		return nil, fmt.Errorf("%s: attributes: %v", address, err)
	}
	paths, err := tfstate.DecodePaths(inst.SensitiveAttributes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", address, err)
	}
	meta, err := encodeMeta(objectMeta{Sensitive: paths})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", address, err)
	}
	sensitive := len(paths) > 0 || schemaSensitive(rs, int64(inst.SchemaVersion), value.Bytes())
	mode := state.Managed
	if r.Mode == "data" {
		mode = state.Data
	}
	return &state.Object{
		Address:             address,
		Mode:                mode,
		Type:                r.Type,
		Provider:            pc.String(),
		SchemaVersion:       int64(inst.SchemaVersion),
		Value:               seal(keys, value.Bytes(), sensitive),
		Private:             sealAdopted(keys, inst.Private),
		Sensitive:           meta,
		Dependencies:        inst.Dependencies,
		Status:              status,
		CreateBeforeDestroy: inst.CreateBeforeDestroy,
	}, nil
}

// schemaSensitive reports whether the provider's schema makes anything in
// an object sensitive. An object written by another schema version cannot
// be read with this one before its provider upgrades it, so it counts as
// sensitive when the schema has any sensitive attribute at all.
func schemaSensitive(rs *provider.ResourceSchema, version int64, raw []byte) bool {
	if version == rs.Version {
		if v, err := ctyjson.Unmarshal(raw, rs.Block.ImpliedType()); err == nil {
			return len(rs.Block.SensitivePaths(v, nil)) > 0
		}
	}
	return blockHasSensitive(rs.Block)
}

func blockHasSensitive(b *provider.Block) bool {
	for _, a := range b.Attributes {
		if a.Sensitive || (a.Nested != nil && nestedHasSensitive(a.Nested)) {
			return true
		}
	}
	for _, nb := range b.BlockTypes {
		if blockHasSensitive(&nb.Block) {
			return true
		}
	}
	return false
}

func nestedHasSensitive(n *provider.NestedAttributes) bool {
	for _, a := range n.Attributes {
		if a.Sensitive || (a.Nested != nil && nestedHasSensitive(a.Nested)) {
			return true
		}
	}
	return false
}

// outputFromTerraform re-encodes an output as Tether records it, checking
// that the value is of its type.
func outputFromTerraform(o tfstate.Output) ([]byte, error) {
	ty, err := ctyjson.UnmarshalType(o.Type)
	if err != nil {
		return nil, fmt.Errorf("type: %v", err)
	}
	v, err := ctyjson.Unmarshal(o.Value, ty)
	if err != nil {
		return nil, fmt.Errorf("value: %v", err)
	}
	return encodeOutput(v)
}

// resourceSchema is the schema of a resource type, or with data of a data
// source type.
func resourceSchema(providers provider.Factory, pc addr.ProviderConfig, data bool, typ string) (*provider.ResourceSchema, error) {
	s, err := providers.Schema(pc.Source.String())
	if err != nil {
		return nil, err
	}
	types, kind := s.Resources, "resource"
	if data {
		types, kind = s.DataSources, "data source"
	}
	rs, ok, err := types.Get(typ)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", pc.Source.ForDisplay(), err)
	}
	if !ok {
		return nil, fmt.Errorf("provider %s has no %s type %q", pc.Source.ForDisplay(), kind, typ)
	}
	return rs, nil
}

// ToTerraform writes what snap records as a Terraform state file, with
// sensitive values opened (Terraform's state holds them in clear text):
// `terraform plan` on it finds the same objects. sensitive_attributes
// holds what Terraform itself would record: the schema's sensitive
// attributes and the sensitive paths of arguments, but not the values
// Tether marks because they were computed from a secret (a checksum of a
// sensitive content), which Terraform would see as a change of
// sensitivity.
//
// A referenced value is never written: attributes hold its description,
// as everywhere. Private data holding one is left out, since rewritten it
// would be bytes the provider cannot decode; withheld names those
// objects. Terraform then gives their provider no private data, as for an
// object `terraform import` brought in.
func ToTerraform(keys *secrets.Keys, providers provider.Factory, snap *state.Snapshot) (f *tfstate.File, withheld []string, err error) {
	f = &tfstate.File{
		Version:          tfstate.Version,
		TerraformVersion: TerraformVersion,
		Serial:           snap.Serial,
		Lineage:          snap.Lineage,
		Outputs:          map[string]tfstate.Output{},
	}
	if f.CheckResults, err = checks.Decode(snap.Checks); err != nil {
		return nil, nil, fmt.Errorf("recorded %v", err)
	}
	addrs := make([]string, 0, len(snap.Objects))
	for a := range snap.Objects {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addr.Less(addrs[i], addrs[j]) })
	index := map[string]int{} // module, mode, type, name -> f.Resources
	for _, a := range addrs {
		obj := snap.Objects[a]
		module, mode, typ, name, key, err := tfstate.Split(a)
		if err != nil {
			return nil, nil, err
		}
		pc, err := addr.ParseProviderConfig(obj.Provider)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, err)
		}
		if pc.Key != "" {
			return nil, nil, fmt.Errorf("%s uses the provider configuration %s, one instance of a provider repeated with for_each, which Terraform's state format cannot name", a, obj.Provider)
		}
		rs, err := resourceSchema(providers, pc, obj.Mode == state.Data, obj.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, err)
		}
		inst, held, err := exportInstance(keys, obj, rs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, err)
		}
		if held {
			withheld = append(withheld, a)
		}
		inst.IndexKey = key
		id := module + " " + mode + "." + typ + "." + name
		i, ok := index[id]
		if !ok {
			i = len(f.Resources)
			index[id] = i
			f.Resources = append(f.Resources, tfstate.Resource{Module: module, Mode: mode, Type: typ, Name: name, Provider: pc.String()})
		} else if f.Resources[i].Provider != pc.String() {
			return nil, nil, fmt.Errorf("%s uses provider %s but other instances of its resource use %s; Terraform's state format has one provider per resource", a, pc, f.Resources[i].Provider)
		}
		f.Resources[i].Instances = append(f.Resources[i].Instances, *inst)
	}
	for name, o := range snap.Outputs {
		raw, err := open(keys, o.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("output %q: %v", name, err)
		}
		var rec tfstate.Output
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, nil, fmt.Errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		rec.Sensitive = o.Sensitive
		f.Outputs[name] = rec
	}
	return f, withheld, nil
}

func exportInstance(keys *secrets.Keys, obj *state.Object, rs *provider.ResourceSchema) (*tfstate.Instance, bool, error) {
	raw, err := open(keys, obj.Value)
	if err != nil {
		return nil, false, err
	}
	meta, err := decodeMeta(obj.Sensitive)
	if err != nil {
		return nil, false, fmt.Errorf("recorded sensitive paths are unreadable: %v", err)
	}
	paths := meta.Sensitive
	if obj.SchemaVersion == rs.Version {
		v, err := ctyjson.Unmarshal(raw, rs.Block.ImpliedType())
		if err != nil {
			return nil, false, fmt.Errorf("recorded object does not match the schema of %s: %v", obj.Type, err)
		}
		paths = terraformSensitive(rs.Block, v, paths)
	}
	sens, err := tfstate.EncodePaths(paths)
	if err != nil {
		return nil, false, err
	}
	// Private data is opened like the attributes, but one holding a
	// referenced value is left out (see ToTerraform).
	var priv []byte
	if !meta.PrivateRefs {
		if priv, err = open(keys, obj.Private); err != nil {
			return nil, false, fmt.Errorf("recorded private data: %v", err)
		}
	}
	inst := &tfstate.Instance{
		SchemaVersion:       uint64(obj.SchemaVersion),
		Attributes:          raw,
		SensitiveAttributes: sens,
		Private:             priv,
		Dependencies:        obj.Dependencies,
		CreateBeforeDestroy: obj.CreateBeforeDestroy,
	}
	if obj.Status == state.Tainted {
		inst.Status = "tainted"
	}
	return inst, meta.PrivateRefs && len(obj.Private) > 0, nil
}

// terraformSensitive is the set of sensitive paths Terraform records for
// v: the recorded paths that lead into an argument (Terraform marks what
// configuration sets, and only that) and the schema's sensitive
// attributes, each once, in a stable order.
func terraformSensitive(b *provider.Block, v cty.Value, recorded []cty.Path) []cty.Path {
	var out []cty.Path
	seen := map[string]bool{}
	add := func(p cty.Path) {
		k, err := tfstate.EncodePaths([]cty.Path{p})
		if err != nil || seen[string(k)] {
			return
		}
		seen[string(k)] = true
		out = append(out, p)
	}
	for _, p := range recorded {
		if settable(b, p) {
			add(p)
		}
	}
	for _, p := range b.SensitivePaths(v, nil) {
		add(p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := tfstate.EncodePaths([]cty.Path{out[i]})
		b, _ := tfstate.EncodePaths([]cty.Path{out[j]})
		return string(a) < string(b)
	})
	return out
}

// settable reports whether a path leads into a value the configuration
// can set, rather than one only the provider computes.
func settable(b *provider.Block, p cty.Path) bool {
	for i := 0; i < len(p); i++ {
		step, ok := p[i].(cty.GetAttrStep)
		if !ok {
			continue // an index into a nested block's collection
		}
		if a, ok := b.Attributes[step.Name]; ok {
			return a.Optional || a.Required
		}
		nb, ok := b.BlockTypes[step.Name]
		if !ok {
			return false
		}
		b = &nb.Block
	}
	return true
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
