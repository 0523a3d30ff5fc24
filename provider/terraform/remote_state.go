package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/tfstate"
)

func remoteStateSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "Reads the root outputs of another configuration's state.",
		Attributes: map[string]*provider.Attribute{
			"backend":   {Type: cty.String, Required: true, Description: `The backend that holds the state: "local" or "pg".`},
			"config":    {Type: cty.DynamicPseudoType, Optional: true, Description: "The backend's settings, as in its backend block."},
			"defaults":  {Type: cty.DynamicPseudoType, Optional: true, Description: "Values for outputs the state lacks."},
			"outputs":   {Type: cty.DynamicPseudoType, Computed: true, Description: "Every root output of the state."},
			"workspace": {Type: cty.String, Optional: true, Description: "The workspace to read; default unless given."},
		},
	}}
}

// backendArgs are the arguments each backend takes in config, with their
// types, as in its backend block.
var backendArgs = map[string]map[string]cty.Type{
	"local": {"path": cty.String, "workspace_dir": cty.String},
	"pg": {
		"conn_str": cty.String, "schema_name": cty.String,
		"skip_schema_creation": cty.Bool, "skip_table_creation": cty.Bool, "skip_index_creation": cty.Bool,
	},
}

func supportedBackends() string {
	names := make([]string, 0, len(backendArgs))
	for n := range backendArgs {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return strings.Join(names, " and ")
}

// backendType is the backend named, with Terraform's old "_local" for
// "local".
func backendType(v cty.Value) string {
	if s := v.AsString(); s != "_local" {
		return s
	}
	return "local"
}

func validateRemoteState(cfg cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if b := cfg.GetAttr("backend"); b.IsKnown() && !b.IsNull() {
		if _, ok := backendArgs[backendType(b)]; !ok {
			diags = append(diags, attrError("backend", "Invalid backend configuration",
				fmt.Sprintf("Tether's terraform_remote_state reads the %s backends; it cannot read the %q backend.", supportedBackends(), b.AsString())))
		} else if c := cfg.GetAttr("config"); c.IsWhollyKnown() {
			_, d := backendSettings(backendType(b), c)
			diags = append(diags, d...)
		}
	}
	for _, name := range []string{"config", "defaults"} {
		if ty := cfg.GetAttr(name).Type(); ty != cty.DynamicPseudoType && !ty.IsObjectType() && !ty.IsMapType() {
			diags = append(diags, attrError(name, "Invalid attribute value", fmt.Sprintf("%s must be an object.", name)))
		}
	}
	return diags
}

// backendSettings reads config as the settings of a backend of type
// typ: each argument it takes, as a string.
func backendSettings(typ string, config cty.Value) (map[string]string, hcl.Diagnostics) {
	out := map[string]string{}
	if config.IsNull() {
		return out, nil
	}
	args := backendArgs[typ]
	var diags hcl.Diagnostics
	for it := config.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		ty, ok := args[name]
		if !ok {
			diags = append(diags, attrError("config", "Invalid backend configuration",
				fmt.Sprintf("The given configuration is not valid for backend %q: unsupported argument %q.", typ, name)))
			continue
		}
		cv, err := convert.Convert(v, ty)
		if err != nil {
			diags = append(diags, attrError("config", "Invalid backend configuration",
				fmt.Sprintf("The given configuration is not valid for backend %q: %s: %s.", typ, name, err)))
			continue
		}
		if cv.IsNull() {
			continue
		}
		if ty == cty.Bool {
			out[name] = fmt.Sprint(cv.True())
		} else {
			out[name] = cv.AsString()
		}
	}
	return out, diags
}

// remoteOutput is one root output of the state read.
type remoteOutput struct {
	value     cty.Value
	sensitive bool
}

func readRemoteState(ctx context.Context, cfg cty.Value) provider.ReadDataResponse {
	fail := func(diags hcl.Diagnostics) provider.ReadDataResponse {
		return provider.ReadDataResponse{State: cty.NullVal(cfg.Type()), Diagnostics: diags}
	}
	if diags := validateRemoteState(cfg); diags.HasErrors() {
		return fail(diags)
	}
	typ := backendType(cfg.GetAttr("backend"))
	settings, diags := backendSettings(typ, cfg.GetAttr("config"))
	if diags.HasErrors() {
		return fail(diags)
	}
	ws := backend.DefaultWorkspace
	if w := cfg.GetAttr("workspace"); !w.IsNull() {
		ws = w.AsString()
	}
	var outputs map[string]remoteOutput
	var err error
	switch typ {
	case "local":
		outputs, err = readLocal(ctx, settings, ws)
	case "pg":
		outputs, err = readPG(ctx, settings, ws)
	}
	if err != nil {
		return fail(hcl.Diagnostics{attrError("backend", "Error loading remote state", fmt.Sprintf("The state could not be read: %s.", err))})
	}
	if outputs == nil {
		return fail(hcl.Diagnostics{attrError("workspace", "Unable to find remote state", "No stored state was found for the given workspace in the given backend.")})
	}
	vals := map[string]cty.Value{}
	defaults := cfg.GetAttr("defaults")
	if !defaults.IsNull() {
		for it := defaults.ElementIterator(); it.Next(); {
			k, v := it.Element()
			vals[k.AsString()] = v
		}
	} else {
		defaults = cty.NullVal(cty.DynamicPseudoType)
	}
	for name, o := range outputs {
		v := o.value
		if o.sensitive {
			// Tether keeps what the other state sealed sealed here: the
			// value is shown and recorded as a secret, as it was there.
			v = v.Mark(marks.Sensitive)
		}
		vals[name] = v
	}
	return provider.ReadDataResponse{State: cty.ObjectVal(map[string]cty.Value{
		"backend":   cfg.GetAttr("backend"),
		"config":    cfg.GetAttr("config"),
		"workspace": cfg.GetAttr("workspace"),
		"defaults":  defaults,
		"outputs":   cty.ObjectVal(vals),
	})}
}

// readLocal reads the state the local backend's settings name for
// workspace ws, nil when there is none. path (terraform.tfstate unless
// given) is a Terraform state file, read as Terraform's local backend
// reads it (a workspace other than default is workspace_dir/NAME/
// terraform.tfstate), or a folder of a configuration Tether manages,
// whose state is read from the backend its init set up.
func readLocal(ctx context.Context, settings map[string]string, ws string) (map[string]remoteOutput, error) {
	path := settings["path"]
	if path == "" {
		path = "terraform.tfstate"
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return readTetherFolder(ctx, path, ws)
	}
	if ws != backend.DefaultWorkspace {
		dir := settings["workspace_dir"]
		if dir == "" {
			dir = "terraform.tfstate.d"
		}
		path = filepath.Join(dir, ws, "terraform.tfstate")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		return nil, fmt.Errorf("%s is a Tether state database: give the folder of the configuration it belongs to as path, so that its key and workspaces are found", path)
	}
	f, err := tfstate.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return terraformOutputs(f)
}

// readTetherFolder reads the state of the configuration in dir, from the
// backend its tether init set up (local unless it set up another).
func readTetherFolder(ctx context.Context, dir, ws string) (map[string]remoteOutput, error) {
	stateDir := filepath.Join(dir, ".tether")
	settings, err := backend.ReadSettings(stateDir)
	if err != nil {
		return nil, err
	}
	if settings == nil {
		settings = &backend.Local
	}
	s := *settings
	// Its local paths are relative to its own folder.
	s.Config = map[string]string{}
	for k, v := range settings.Config {
		if (k == "path" || k == "workspace_dir") && v != "" && !filepath.IsAbs(v) {
			v = filepath.Join(dir, v)
		}
		s.Config[k] = v
	}
	b, err := backend.OpenForReading(ctx, stateDir, s)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return readTether(ctx, b, ws)
}

// readTether reads workspace ws of a Tether backend, nil when it has no
// state.
func readTether(ctx context.Context, b *backend.Backend, ws string) (map[string]remoteOutput, error) {
	snap, err := b.LoadState(ctx, ws)
	if snap == nil || err != nil {
		return nil, err
	}
	var keys *secrets.Keys
	out := map[string]remoteOutput{}
	for name, o := range snap.Outputs {
		raw := o.Value
		if secrets.IsSealed(raw) {
			if keys == nil {
				if keys, err = b.Keys(); err != nil {
					return nil, err
				}
			}
			if raw, err = keys.Open(raw); err != nil {
				return nil, fmt.Errorf("output %q: %v", name, err)
			}
		}
		v, err := ctyjson.Unmarshal(raw, cty.DynamicPseudoType)
		if err != nil {
			return nil, fmt.Errorf("output %q is recorded in a form this Tether cannot read: %v", name, err)
		}
		out[name] = remoteOutput{value: v, sensitive: o.Sensitive}
	}
	return out, nil
}

// terraformOutputs are the root outputs of a Terraform state file.
func terraformOutputs(f *tfstate.File) (map[string]remoteOutput, error) {
	out := map[string]remoteOutput{}
	for name, o := range f.Outputs {
		typed, err := json.Marshal(map[string]json.RawMessage{"value": o.Value, "type": o.Type})
		if err != nil {
			return nil, err
		}
		v, err := ctyjson.Unmarshal(typed, cty.DynamicPseudoType)
		if err != nil {
			return nil, fmt.Errorf("output %q: %v", name, err)
		}
		out[name] = remoteOutput{value: v, sensitive: o.Sensitive}
	}
	return out, nil
}

// readPG reads workspace ws from a PostgreSQL schema: Terraform's own
// pg backend's row for it when there is one, else Tether's workspace.
// The connection string and schema default to PG_CONN_STR and
// PG_SCHEMA_NAME, as the backend block's do.
func readPG(ctx context.Context, settings map[string]string, ws string) (map[string]remoteOutput, error) {
	b, err := backend.OpenForReading(ctx, "", backend.Settings{Type: "pg", Config: settings})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	ts, err := b.TerraformState(ctx, ws)
	if err != nil {
		return nil, err
	}
	if ts != nil {
		defer ts.Release()
		f, err := tfstate.Read(bytes.NewReader(ts.Data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", ts.Where, err)
		}
		return terraformOutputs(f)
	}
	return readTether(ctx, b, ws)
}
