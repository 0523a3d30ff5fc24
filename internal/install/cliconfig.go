package install

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
	"github.com/zclconf/go-cty/cty"
)

// CLIConfig is the part of Terraform's CLI configuration that decides how
// providers are installed. LoadCLIConfig reads it; a caller may also build
// one by hand.
type CLIConfig struct {
	// File is the configuration file that was read, or "" when there was
	// none.
	File string
	// Methods are the installation methods in the order they are searched.
	// Without a provider_installation block they are Terraform's implied
	// ones: each local plugin folder that exists, then direct for every
	// provider none of those folders holds.
	Methods []Method
	// Implied is true when Methods were implied rather than configured.
	Implied bool
	// DevOverrides maps a provider to a folder holding a development build
	// that is used as it is, whatever the version constraints and the lock.
	DevOverrides map[tfaddr.Provider]string
	// PluginCacheDir is the shared plugin cache folder, or "" for none.
	// TF_PLUGIN_CACHE_DIR overrides plugin_cache_dir.
	PluginCacheDir string
	// PluginCacheMayBreakLock lets a package in the plugin cache be used
	// when the lock file has no entry for its version, so that the entry
	// written holds only the cached package's hash (Terraform's interim
	// plugin_cache_may_break_dependency_lock_file, or the variable
	// TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE set to anything but
	// "0"). A cached package that does not match a locked hash is still
	// refused.
	PluginCacheMayBreakLock bool
	// Tokens are registry API tokens by hostname (in the form
	// svchost.ForComparison gives), from TF_TOKEN_* variables, credentials
	// blocks and ~/.terraform.d/credentials.tfrc.json, in that order of
	// precedence.
	Tokens map[string]string
}

// PluginDirs makes dirs the only places providers are installed from, as
// `terraform init -plugin-dir` does: each a filesystem mirror (either
// layout), with no registry. Development overrides and the plugin cache
// still apply.
func (cfg *CLIConfig) PluginDirs(dirs []string) {
	cfg.Methods, cfg.Implied = nil, false
	for _, d := range dirs {
		cfg.Methods = append(cfg.Methods, Method{Kind: FilesystemMirror, Location: d})
	}
}

// MethodKind names an installation method block.
type MethodKind string

// The installation methods of a provider_installation block.
const (
	Direct           MethodKind = "direct"
	FilesystemMirror MethodKind = "filesystem_mirror"
	NetworkMirror    MethodKind = "network_mirror"
)

// Method is one installation method: where to look, and for which
// providers.
type Method struct {
	Kind MethodKind
	// Location is the mirror folder (filesystem_mirror) or base URL, ending
	// in "/" (network_mirror); "" for direct.
	Location string
	// Include and Exclude are provider patterns such as "hashicorp/*",
	// "example.com/*/*" or "*/*/*". With no Include the method serves every
	// provider that Exclude does not name.
	Include, Exclude []string
}

// LoadCLIConfig reads the CLI configuration as Terraform 1.11 does: the file
// named by TF_CLI_CONFIG_FILE, else home/.terraformrc, in HCL native
// syntax (with HCL 1's quoted keys in dev_overrides) or, for a name ending
// in ".json", JSON. A missing file is no
// error (the implied configuration applies); a file that does not parse, or
// a block of the wrong shape, is an error starting with file:line:col.
//
// environ is the process environment (os.Environ() in a command), home the
// user's home folder, and workdir the folder whose terraform.d/plugins is
// the first implied local mirror. Nothing else of the process is read, so
// tests can be hermetic; the implied local mirror folders are scanned on
// disk when there is no provider_installation block.
func LoadCLIConfig(environ []string, home, workdir string) (*CLIConfig, error) {
	env := envMap(environ)
	cfg := &CLIConfig{Tokens: map[string]string{}}
	path := env["TF_CLI_CONFIG_FILE"]
	if path == "" && home != "" {
		path = filepath.Join(home, ".terraformrc")
	}
	var explicit bool
	if path != "" {
		src, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("cannot read the CLI configuration: %w", err)
		default:
			cfg.File = path
			explicit, err = cfg.parse(src, path)
			if err != nil {
				return nil, err
			}
		}
	}
	if dir := env["TF_PLUGIN_CACHE_DIR"]; dir != "" {
		cfg.PluginCacheDir = dir
	}
	if v := env["TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE"]; v != "" && v != "0" {
		cfg.PluginCacheMayBreakLock = true
	}
	if home != "" {
		if err := cfg.loginTokens(filepath.Join(home, ".terraform.d", "credentials.tfrc.json")); err != nil {
			return nil, err
		}
	}
	for k, v := range env {
		if host, ok := strings.CutPrefix(k, "TF_TOKEN_"); ok && v != "" {
			if h, err := svchost.ForComparison(tokenHost(host)); err == nil {
				cfg.Tokens[h.String()] = v
			}
		}
	}
	if !explicit {
		cfg.Implied = true
		cfg.Methods = impliedMethods(env, home, workdir)
	}
	return cfg, nil
}

// loginTokens adds the tokens `terraform login` saved in path (JSON:
// {"credentials": {"HOST": {"token": "…"}}}) for hosts that have none yet.
// A missing file is no error; one that is not such JSON is.
func (cfg *CLIConfig) loginTokens(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read saved credentials: %w", err)
	}
	var doc struct {
		Credentials map[string]struct {
			Token string `json:"token"`
		} `json:"credentials"`
	}
	if err := stdjson.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: the saved credentials are not valid JSON: %v", path, err)
	}
	for host, c := range doc.Credentials {
		h, err := svchost.ForComparison(host)
		if err != nil || c.Token == "" {
			continue
		}
		if _, set := cfg.Tokens[h.String()]; !set {
			cfg.Tokens[h.String()] = c.Token
		}
	}
	return nil
}

// tokenHost decodes the hostname part of a TF_TOKEN_ variable: "__" stands
// for "-" and "_" for ".".
func tokenHost(s string) string {
	s = strings.ReplaceAll(s, "__", "\x00")
	s = strings.ReplaceAll(s, "_", ".")
	return strings.ReplaceAll(s, "\x00", "-")
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

var cliSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "plugin_cache_dir"}, {Name: "plugin_cache_may_break_dependency_lock_file"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "provider_installation"},
		{Type: "credentials", LabelNames: []string{"host"}},
	},
}

// parse reads the file's settings into cfg and reports whether it had a
// provider_installation block.
func (cfg *CLIConfig) parse(src []byte, filename string) (bool, error) {
	var f *hcl.File
	var diags hcl.Diagnostics
	var keys map[string]string
	if strings.HasSuffix(filename, ".json") {
		f, diags = json.Parse(src, filename)
	} else {
		src, keys = rewriteQuotedKeys(src, filename)
		f, diags = hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	}
	if diags.HasErrors() {
		return false, diagsError(diags)
	}
	content, _, diags := f.Body.PartialContent(cliSchema)
	if diags.HasErrors() {
		return false, diagsError(diags)
	}
	if a, ok := content.Attributes["plugin_cache_dir"]; ok {
		s, diags := stringAttr(a)
		if diags.HasErrors() {
			return false, diagsError(diags)
		}
		cfg.PluginCacheDir = s
	}
	if a, ok := content.Attributes["plugin_cache_may_break_dependency_lock_file"]; ok {
		v, diags := a.Expr.Value(nil)
		if !diags.HasErrors() && (v.Type() != cty.Bool || v.IsNull()) {
			diags = hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Incorrect value type",
				Detail:   fmt.Sprintf("The argument %q must be true or false.", a.Name),
				Subject:  a.Expr.Range().Ptr(),
			}}
		}
		if diags.HasErrors() {
			return false, diagsError(diags)
		}
		cfg.PluginCacheMayBreakLock = cfg.PluginCacheMayBreakLock || v.True()
	}
	installs := 0
	for _, b := range content.Blocks {
		switch b.Type {
		case "credentials":
			if err := cfg.credentials(b); err != nil {
				return false, err
			}
		case "provider_installation":
			installs++
			if installs > 1 {
				return false, diagsError(hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Multiple provider_installation blocks",
					Detail:   "The CLI configuration may have only one provider_installation block.",
					Subject:  b.DefRange.Ptr(),
				}})
			}
			if err := cfg.installation(b, keys); err != nil {
				return false, err
			}
		}
	}
	return installs > 0, nil
}

func (cfg *CLIConfig) credentials(b *hcl.Block) error {
	content, _, diags := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "token"}}})
	if diags.HasErrors() {
		return diagsError(diags)
	}
	host, err := svchost.ForComparison(b.Labels[0])
	if err != nil {
		return diagsError(hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid credentials hostname",
			Detail:   fmt.Sprintf("%q is not a valid hostname: %s.", b.Labels[0], err),
			Subject:  b.LabelRanges[0].Ptr(),
		}})
	}
	if a, ok := content.Attributes["token"]; ok {
		tok, diags := stringAttr(a)
		if diags.HasErrors() {
			return diagsError(diags)
		}
		if _, set := cfg.Tokens[host.String()]; !set {
			cfg.Tokens[host.String()] = tok
		}
	}
	return nil
}

var methodSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "path"}, {Name: "url"}, {Name: "include"}, {Name: "exclude"},
}}

var installationSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: string(FilesystemMirror)},
	{Type: string(NetworkMirror)},
	{Type: string(Direct)},
	{Type: "dev_overrides"},
}}

// installation reads a provider_installation block: its method blocks in
// order, and dev_overrides.
func (cfg *CLIConfig) installation(b *hcl.Block, keys map[string]string) error {
	content, diags := b.Body.Content(installationSchema)
	if diags.HasErrors() {
		return diagsError(diags)
	}
	for _, mb := range content.Blocks {
		if mb.Type == "dev_overrides" {
			if err := cfg.devOverrides(mb, keys); err != nil {
				return err
			}
			continue
		}
		m := Method{Kind: MethodKind(mb.Type)}
		content, diags := mb.Body.Content(methodSchema)
		if diags.HasErrors() {
			return diagsError(diags)
		}
		if err := m.decode(content, mb); err != nil {
			return err
		}
		cfg.Methods = append(cfg.Methods, m)
	}
	return nil
}

func (m *Method) decode(content *hcl.BodyContent, b *hcl.Block) error {
	want := map[MethodKind]string{FilesystemMirror: "path", NetworkMirror: "url"}[m.Kind]
	for name, a := range content.Attributes {
		switch name {
		case "include", "exclude":
			list, err := stringList(a)
			if err != nil {
				return err
			}
			if err := checkPatterns(list, a); err != nil {
				return err
			}
			if name == "include" {
				m.Include = list
			} else {
				m.Exclude = list
			}
		case want:
			s, diags := stringAttr(a)
			if diags.HasErrors() {
				return diagsError(diags)
			}
			m.Location = s
		default:
			return diagsError(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Unsupported argument",
				Detail:   fmt.Sprintf("The %s block does not take the argument %q.", m.Kind, name),
				Subject:  a.NameRange.Ptr(),
			}})
		}
	}
	if want != "" && m.Location == "" {
		return diagsError(hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Missing required argument",
			Detail:   fmt.Sprintf("The %s block needs the argument %q.", m.Kind, want),
			Subject:  b.TypeRange.Ptr(),
		}})
	}
	if m.Kind == NetworkMirror {
		u, err := url.Parse(m.Location)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return diagsError(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid network mirror URL",
				Detail:   fmt.Sprintf("The network mirror URL %q must be an absolute https URL.", m.Location),
				Subject:  content.Attributes["url"].Expr.Range().Ptr(),
			}})
		}
		if !strings.HasSuffix(m.Location, "/") {
			m.Location += "/"
		}
	}
	return nil
}

func (cfg *CLIConfig) devOverrides(b *hcl.Block, keys map[string]string) error {
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return diagsError(diags)
	}
	if cfg.DevOverrides == nil {
		cfg.DevOverrides = map[tfaddr.Provider]string{}
	}
	for name, a := range attrs {
		if k, ok := keys[name]; ok {
			name = k
		}
		p, err := tfaddr.ParseProviderSource(name)
		if err != nil {
			return diagsError(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider source address",
				Detail:   fmt.Sprintf("The dev_overrides key %q is not a provider source address: %s.", name, err),
				Subject:  a.NameRange.Ptr(),
			}})
		}
		dir, diags := stringAttr(a)
		if diags.HasErrors() {
			return diagsError(diags)
		}
		cfg.DevOverrides[p] = filepath.Clean(dir)
	}
	return nil
}

func stringList(a *hcl.Attribute) ([]string, error) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, diagsError(diags)
	}
	if v.IsNull() || !(v.Type().IsTupleType() || v.Type().IsListType()) {
		return nil, listTypeError(a)
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.Type() != cty.String || e.IsNull() {
			return nil, listTypeError(a)
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func listTypeError(a *hcl.Attribute) error {
	return diagsError(hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Incorrect value type",
		Detail:   fmt.Sprintf("The argument %q must be a list of strings.", a.Name),
		Subject:  a.Expr.Range().Ptr(),
	}})
}

// rewriteQuotedKeys lets the HCL 2 parser read the HCL 1 form Terraform's
// CLI configuration uses for dev_overrides, `"hashicorp/time" = "/path"`:
// every quoted string that starts a line and is followed by "=" is replaced
// by an identifier of the same length, so positions in errors stay true. It
// returns the new source and the original key of each identifier.
func rewriteQuotedKeys(src []byte, filename string) ([]byte, map[string]string) {
	toks, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	keys := map[string]string{}
	var out []byte
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].Type != hclsyntax.TokenOQuote {
			continue
		}
		if i > 0 && toks[i-1].Type != hclsyntax.TokenNewline && toks[i-1].Type != hclsyntax.TokenOBrace {
			continue
		}
		j, lit := i+1, ""
		if toks[j].Type == hclsyntax.TokenQuotedLit {
			lit = string(toks[j].Bytes)
			j++
		}
		if toks[j].Type != hclsyntax.TokenCQuote || toks[j+1].Type != hclsyntax.TokenEqual {
			continue
		}
		start, end := toks[i].Range.Start.Byte, toks[j].Range.End.Byte
		id := fmt.Sprintf("k%d", len(keys))
		if len(id) > end-start {
			continue
		}
		id += strings.Repeat("_", end-start-len(id))
		if out == nil {
			out = append([]byte(nil), src...)
		}
		copy(out[start:end], id)
		keys[id] = lit
	}
	if out == nil {
		return src, keys
	}
	return out, keys
}

// impliedMethods is Terraform's installation configuration when the CLI
// configuration has no provider_installation block: every local plugin
// folder that exists, as a filesystem mirror for what it holds, then direct
// for every other provider.
func impliedMethods(env map[string]string, home, workdir string) []Method {
	var methods []Method
	var found []string
	for _, dir := range impliedMirrorDirs(env, home, workdir) {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		methods = append(methods, Method{Kind: FilesystemMirror, Location: dir})
		for _, p := range (fsMirror{dir: dir}).providers() {
			if !contains(found, p.String()) {
				found = append(found, p.String())
			}
		}
	}
	return append(methods, Method{Kind: Direct, Exclude: found})
}

// impliedMirrorDirs lists, in search order, the local folders Terraform
// looks in for providers when no installation methods are configured.
func impliedMirrorDirs(env map[string]string, home, workdir string) []string {
	dirs := []string{filepath.Join(workdir, "terraform.d", "plugins")}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".terraform.d", "plugins"))
	}
	if runtime.GOOS == "darwin" {
		if home != "" {
			dirs = append(dirs, filepath.Join(home, "Library", "Application Support", "io.terraform", "plugins"))
		}
		return append(dirs, filepath.Join("/Library", "Application Support", "io.terraform", "plugins"))
	}
	dataHome := env["XDG_DATA_HOME"]
	if dataHome == "" && home != "" {
		dataHome = filepath.Join(home, ".local", "share")
	}
	if dataHome != "" {
		dirs = append(dirs, filepath.Join(dataHome, "terraform", "plugins"))
	}
	dataDirs := env["XDG_DATA_DIRS"]
	if dataDirs == "" {
		dataDirs = "/usr/local/share/:/usr/share/"
	}
	for _, d := range filepath.SplitList(dataDirs) {
		if d != "" {
			dirs = append(dirs, filepath.Join(d, "terraform", "plugins"))
		}
	}
	return dirs
}
