package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
)

// FileName is the name of the file synth writes in each module's folder.
const FileName = "main.tf.json"

// Files returns the Terraform JSON of cfg, to be written in the folder
// out: the text of main.tf.json of the root module at key FileName, and
// of every child module made by a Go program's component at
// modules/NAME/main.tf.json (modules/a/modules/b/... deeper). A call of a
// module of its own files (HCL, or tether.Module) is a module block with
// the same source and version, a local folder's relative to out: Terraform
// reads that module's files itself. On errors it returns none.
func Files(cfg *config.Config, out string) (map[string][]byte, hcl.Diagnostics) {
	s := &synth{cfg: cfg, nodes: map[string]*config.Node{}, modules: map[string]*module{}, calls: map[string]map[string]any{}, out: out}
	for _, n := range cfg.Nodes {
		s.nodes[n.Addr] = n
	}
	s.externalCalls()
	s.module("")
	for _, n := range cfg.Nodes {
		if s.inCall(n.Module) {
			continue
		}
		s.module(n.Module)
		if _, external := s.calls[n.Addr]; n.Kind == config.Module && !external {
			s.module(n.Addr)
		}
	}
	for _, n := range cfg.Nodes {
		if !s.inCall(n.Module) {
			s.node(n)
		} else {
			s.declaresBuiltin(n)
		}
	}
	s.moves()
	if s.diags.HasErrors() {
		return nil, s.diags
	}
	files := map[string][]byte{}
	for _, p := range sortedKeys(s.modules) {
		m := s.modules[p]
		text, err := json.MarshalIndent(s.document(m), "", "  ")
		if err != nil {
			return nil, append(s.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write Terraform JSON", Detail: fmt.Sprintf("Encoding %s: %v.", m.file(), err)})
		}
		files[m.file()] = append(text, '\n')
	}
	return files, s.diags
}

// Write writes the files of Files under dir, creating the folders.
func Write(cfg *config.Config, dir string) hcl.Diagnostics {
	files, diags := Files(cfg, dir)
	if diags.HasErrors() {
		return diags
	}
	return append(diags, WriteFiles(cfg, files, dir)...)
}

// UsesBuiltin reports whether any module of files (as Files returns
// them) requires the built-in provider, which Terraform must then find.
func UsesBuiltin(files map[string][]byte) bool {
	for _, text := range files {
		var doc struct {
			Terraform struct {
				RequiredProviders map[string]struct {
					Source string `json:"source"`
				} `json:"required_providers"`
			} `json:"terraform"`
		}
		if json.Unmarshal(text, &doc) != nil {
			continue
		}
		for _, p := range doc.Terraform.RequiredProviders {
			if p.Source == config.BuiltinSource.ForDisplay() {
				return true
			}
		}
	}
	return false
}

// WriteFiles writes files (as Files returns them) under dir, creating
// the folders, and copies cfg.Files there.
func WriteFiles(cfg *config.Config, files map[string][]byte, dir string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range sortedKeys(files) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return append(diags, writeError(p, err))
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return append(diags, writeError(p, err))
		}
	}
	for _, name := range sortedKeys(cfg.Files) {
		if err := copyFile(cfg.Files[name], filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return append(diags, writeError(filepath.Join(dir, name), err))
		}
	}
	return diags
}

// copyFile copies a file with its permissions.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeError(p string, err error) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write Terraform JSON", Detail: fmt.Sprintf("Writing %s: %v.", p, err)}
}

type synth struct {
	cfg     *config.Config
	nodes   map[string]*config.Node
	modules map[string]*module
	// calls are the module calls of modules of their own files, by
	// address, with their Terraform forms.
	calls map[string]map[string]any
	out   string
	diags hcl.Diagnostics
}

// externalCalls finds the calls of modules of their own files: those
// whose Terraform form has a source. A Go program's component has none,
// and synth writes its module.
func (s *synth) externalCalls() {
	for _, n := range s.cfg.Nodes {
		if n.Kind != config.Module || n.Terraform == nil || s.inCall(n.Module) {
			continue
		}
		body, diags := n.Terraform.TerraformJSON()
		obj, _ := body.(map[string]any)
		src, ok := obj["source"].(string)
		if diags.HasErrors() || !ok {
			continue
		}
		if filepath.IsAbs(src) {
			// A local folder: Terraform wants it relative to the root
			// module, ./ or ../ first.
			out, err := filepath.Abs(s.out)
			rel := ""
			if err == nil {
				rel, err = filepath.Rel(out, src)
			}
			if err != nil {
				s.errorf(n, "Cannot synthesise a module call", "The folder of %s, %s, cannot be written relative to the output folder: %v.", n.Addr, src, err)
				continue
			}
			rel = filepath.ToSlash(rel)
			if !strings.HasPrefix(rel, "../") {
				rel = "./" + rel
			}
			obj["source"] = rel
		}
		s.calls[n.Addr] = obj
	}
}

// declaresBuiltin checks that a resource of a module synth writes as a
// call of its own files declares the built-in provider where it uses it:
// Terraform reads those files itself, and without a required_providers
// entry it takes tether_* resources for hashicorp/tether, which does not
// exist. Synth cannot add the entry to files it does not write.
func (s *synth) declaresBuiltin(n *config.Node) {
	if !n.SourceImplied || n.Source != config.BuiltinSource.String() || (n.Kind != config.Resource && n.Kind != config.DataSource && n.Kind != config.Ephemeral) {
		return
	}
	s.errorf(n, "Module does not declare the tether provider",
		"%s uses the built-in provider, which the module's files do not declare: Terraform would look for hashicorp/tether. Add to the module's terraform block:\n\n  required_providers {\n    tether = { source = \"tetherhq/tether\" }\n  }", n.Addr)
}

// inCall reports whether the module path p is inside a module synth
// writes as a call of its own files.
func (s *synth) inCall(p string) bool {
	for p != "" {
		if _, ok := s.calls[p]; ok {
			return true
		}
		p = parentOf(p)
	}
	return false
}

// module is one module's file as it is built.
type module struct {
	path string // "" for the root, module.a.module.b
	// blocks are the file's top-level block types: resource and data by
	// type then name, the others by name.
	resources, data, ephemeral map[string]map[string]any
	variables                  map[string]any
	outputs                    map[string]any
	locals                     map[string]any
	providers                  map[string][]any
	checks                     map[string]any
	calls                      map[string]map[string]any
	moved, removed             []any
	// sources are the providers the module's resources use, by source.
	sources map[string]bool
}

func (s *synth) module(p string) *module {
	if m, ok := s.modules[p]; ok {
		return m
	}
	m := &module{
		path: p, resources: map[string]map[string]any{}, data: map[string]map[string]any{}, ephemeral: map[string]map[string]any{},
		variables: map[string]any{}, outputs: map[string]any{}, locals: map[string]any{},
		providers: map[string][]any{}, checks: map[string]any{}, calls: map[string]map[string]any{},
		sources: map[string]bool{},
	}
	s.modules[p] = m
	if p != "" {
		parent := s.module(parentOf(p))
		if _, ok := parent.calls[lastName(p)]; !ok {
			parent.calls[lastName(p)] = map[string]any{"source": "./" + path.Join("modules", lastName(p))}
		}
	}
	return m
}

// file is the module's file, relative to the output folder.
func (m *module) file() string {
	dir := ""
	for _, step := range steps(m.path) {
		dir = path.Join(dir, "modules", step)
	}
	return path.Join(dir, FileName)
}

// steps are the names of a module path's calls: module.a.module.b is a, b.
func steps(p string) []string {
	var out []string
	parts := strings.Split(p, ".")
	for i := 0; i+1 < len(parts); i += 2 {
		out = append(out, parts[i+1])
	}
	return out
}

func parentOf(p string) string {
	i := strings.LastIndex(p, ".module.")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func lastName(p string) string { return p[strings.LastIndex(p, ".")+1:] }

func (s *synth) errorf(n *config.Node, summary, format string, args ...any) {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}
	if n != nil && n.DeclRange.Filename != "" {
		d.Subject = n.DeclRange.Ptr()
	}
	s.diags = append(s.diags, d)
}

// node places one node in its module's file.
func (s *synth) node(n *config.Node) {
	m := s.module(n.Module)
	if n.Kind == config.Provider && n.Terraform == nil {
		// An empty default configuration, which Terraform implies.
		m.sources[n.Source] = true
		return
	}
	if n.Terraform == nil {
		s.errorf(n, "Cannot synthesise "+n.Kind.String(), "%s cannot be written as Terraform JSON: its front-end gives no Terraform form for it.", n.Addr)
		return
	}
	var body any
	if call, ok := s.calls[n.Addr]; ok {
		body = call
	} else {
		var diags hcl.Diagnostics
		body, diags = n.Terraform.TerraformJSON()
		s.diags = append(s.diags, diags...)
		if diags.HasErrors() {
			return
		}
	}
	if n.Kind != config.Variable {
		var err error
		if body, err = s.relativeValue(m, body, ""); err != nil {
			s.errorf(n, "Cannot synthesise "+n.Kind.String(), "%s: %v.", n.Addr, err)
			return
		}
	}
	obj, _ := body.(map[string]any)
	if obj == nil && n.Kind != config.Local {
		s.errorf(n, "Cannot synthesise "+n.Kind.String(), "%s: its front-end gave %T for its body, not an object.", n.Addr, body)
		return
	}
	switch n.Kind {
	case config.Resource, config.DataSource, config.Ephemeral:
		blocks := m.resources
		switch n.Kind {
		case config.DataSource:
			blocks = m.data
		case config.Ephemeral:
			blocks = m.ephemeral
		}
		if blocks[n.Type] == nil {
			blocks[n.Type] = map[string]any{}
		}
		blocks[n.Type][n.Name] = obj
		m.sources[n.Source] = true
	case config.Variable:
		m.variables[n.Name] = obj
	case config.Output:
		m.outputs[n.Name] = obj
	case config.Local:
		m.locals[n.Name] = body
	case config.Provider:
		local := s.localName(n.Source)
		m.providers[local] = append(m.providers[local], obj)
		m.sources[n.Source] = true
	case config.Check:
		m.checks[n.Name] = obj
	case config.Module:
		call := m.calls[n.Name]
		if call == nil {
			call = map[string]any{}
			m.calls[n.Name] = call
		}
		for k, v := range obj {
			call[k] = v
		}
	default:
		s.errorf(n, "Cannot synthesise "+n.Kind.String(), "%s is a %s, which synth does not write.", n.Addr, n.Kind)
	}
}

// relativeValue rewrites the references in a body's templates for module
// m. key is the attribute the value belongs to: depends_on and
// replace_triggered_by hold references, not templates; ignore_changes and
// provider name things of the block's own.
func (s *synth) relativeValue(m *module, v any, key string) (any, error) {
	switch v := v.(type) {
	case string:
		switch key {
		case "depends_on", "replace_triggered_by":
			return s.relativeReference(m, v)
		case "ignore_changes", "provider":
			return v, nil
		}
		return s.relativeTemplate(m, v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			r, err := s.relativeValue(m, e, key)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			r, err := s.relativeValue(m, e, k)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// relativeTemplate rewrites the references of a template string.
func (s *synth) relativeTemplate(m *module, text string) (string, error) {
	if !strings.Contains(text, "${") && !strings.Contains(text, "%{") {
		return text, nil
	}
	expr, diags := hclsyntax.ParseTemplate([]byte(text), "", hcl.InitialPos)
	if diags.HasErrors() {
		return "", fmt.Errorf("the template %q is not valid: %s", text, diags.Error())
	}
	s.functionProviders(m, expr)
	traversals := expr.Variables()
	sort.Slice(traversals, func(i, j int) bool {
		return traversals[i].SourceRange().Start.Byte > traversals[j].SourceRange().Start.Byte
	})
	out := text
	for _, t := range traversals {
		r := t.SourceRange()
		abs := text[r.Start.Byte:r.End.Byte]
		rel, err := s.relative(m, t, abs)
		if err != nil {
			return "", err
		}
		out = out[:r.Start.Byte] + rel + out[r.End.Byte:]
	}
	return out, nil
}

// functionProviders adds the providers whose functions expr calls
// (provider::NAME::F) to those the module requires: Terraform finds a
// provider function only through the calling module's required_providers.
func (s *synth) functionProviders(m *module, expr hclsyntax.Expression) {
	hclsyntax.VisitAll(expr, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok {
			return nil
		}
		parts := strings.Split(call.Name, "::")
		if len(parts) != 3 || parts[0] != "provider" {
			return nil
		}
		if req, ok := s.cfg.Required[parts[1]]; ok {
			m.sources[req.Source.String()] = true
		} else if parts[1] == config.BuiltinSource.Type {
			m.sources[config.BuiltinSource.String()] = true
		}
		return nil
	})
}

// relativeReference rewrites a reference written alone (in depends_on).
func (s *synth) relativeReference(m *module, text string) (string, error) {
	t, diags := hclsyntax.ParseTraversalAbs([]byte(text), "", hcl.InitialPos)
	if diags.HasErrors() {
		return "", fmt.Errorf("%q is not a reference: %s", text, diags.Error())
	}
	target := s.target(t)
	if target == nil || target.Module == m.path || (target.Kind == config.Module && parentOf(target.Addr) == m.path) {
		return s.relative(m, t, text)
	}
	return "", fmt.Errorf("it depends on %s, in another module; Terraform cannot order a module's resources after one outside it except through values, so pass a value of it instead", target.Addr)
}

// target is the node a traversal refers to: the longest address made of
// its leading names.
func (s *synth) target(t hcl.Traversal) *config.Node {
	var found *config.Node
	name := ""
	for i, step := range t {
		switch st := step.(type) {
		case hcl.TraverseRoot:
			name = st.Name
		case hcl.TraverseAttr:
			name += "." + st.Name
		default:
			return found
		}
		if n, ok := s.nodes[name]; ok && i > 0 {
			found = n
		}
	}
	return found
}

// relative is the text of a reference in module m to what the traversal
// t (written abs, by whole address) names.
func (s *synth) relative(m *module, t hcl.Traversal, abs string) (string, error) {
	target := s.target(t)
	if target == nil {
		// count.index, each.key, path.module, self: the module's own.
		return abs, nil
	}
	home := target.Module
	if target.Kind == config.Module {
		// A module call's outputs are read in its caller.
		home = parentOf(target.Addr)
	}
	return s.valueIn(m, abs, home), nil
}

// valueIn is the expression, in module m, of the value written abs that
// lives in module home: relative in its own module, through an output of
// each module on the way down to it, or through a variable of each
// module on the way up.
func (s *synth) valueIn(m *module, abs, home string) string {
	if home == m.path {
		if m.path == "" {
			return abs
		}
		return strings.TrimPrefix(abs, m.path+".")
	}
	name := passName(abs)
	if m.path == "" || strings.HasPrefix(home, m.path+".") {
		rest := strings.TrimPrefix(home, m.path)
		rest = strings.TrimPrefix(rest, ".")
		childPath := strings.Join(strings.SplitN(rest, ".", 3)[:2], ".")
		if m.path != "" {
			childPath = m.path + "." + childPath
		}
		child := s.module(childPath)
		if _, ok := child.outputs[name]; !ok {
			child.outputs[name] = map[string]any{"value": "${" + s.valueIn(child, abs, home) + "}"}
		}
		return "module." + lastName(childPath) + "." + name
	}
	if _, ok := m.variables[name]; !ok {
		m.variables[name] = map[string]any{}
		parent := s.module(parentOf(m.path))
		parent.calls[lastName(m.path)][name] = "${" + s.valueIn(parent, abs, home) + "}"
	}
	return "var." + name
}

// passName names the variable or output that carries a value between
// modules: its whole address with every character that cannot be in a
// name replaced by _.
func passName(abs string) string {
	var b strings.Builder
	for _, r := range abs {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// declaredInCall reports whether addr is something inside a module synth
// writes as a call of its own files.
func (s *synth) declaredInCall(addr string) bool {
	for p := range s.calls {
		if strings.HasPrefix(addr, p+".") || strings.HasPrefix(addr, p+"[") {
			return true
		}
	}
	return false
}

// moves writes moved and removed blocks; imports are refused.
func (s *synth) moves() {
	root := s.modules[""]
	for _, mv := range s.cfg.Moved {
		if s.declaredInCall(mv.From) || s.declaredInCall(mv.To) {
			continue // the module's own, in its files
		}
		root.moved = append(root.moved, map[string]any{"from": mv.From, "to": mv.To})
	}
	for _, r := range s.cfg.Removed {
		if s.declaredInCall(r.From) {
			continue
		}
		root.removed = append(root.removed, map[string]any{"from": r.From, "lifecycle": map[string]any{"destroy": r.Destroy}})
	}
	for _, im := range s.cfg.Imports {
		s.diags = append(s.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cannot synthesise an import",
			Detail:   fmt.Sprintf("The import into %s cannot be written as Terraform JSON yet: its ID is computed by Tether. Import the object with `terraform import` after synth instead.", im.To),
			Subject:  im.Range.Ptr(),
		})
	}
}

// localName is the local name a module uses for a provider: the root
// module's required_providers name it, or its type does.
func (s *synth) localName(source string) string {
	for _, local := range sortedKeys(s.cfg.Required) {
		if s.cfg.Required[local].Source.String() == source {
			return local
		}
	}
	if p, err := tfaddr.ParseProviderSource(source); err == nil {
		return p.Type
	}
	return source
}

// document is the JSON object of a module's file.
func (s *synth) document(m *module) map[string]any {
	doc := map[string]any{}
	required := map[string]any{}
	for src := range m.sources {
		local := s.localName(src)
		entry := map[string]any{"source": src}
		if p, err := tfaddr.ParseProviderSource(src); err == nil {
			entry["source"] = p.ForDisplay()
		}
		if req, ok := s.cfg.Required[local]; ok && m.path == "" && len(req.Constraints) > 0 {
			entry["version"] = strings.Join(req.Constraints, ", ")
		}
		required[local] = entry
	}
	terraform := map[string]any{}
	if len(required) > 0 {
		terraform["required_providers"] = required
	}
	if m.path == "" {
		if b := s.backend(); b != nil {
			terraform["backend"] = b
		}
	}
	if len(terraform) > 0 {
		doc["terraform"] = terraform
	}
	put := func(key string, v map[string]any) {
		if len(v) > 0 {
			doc[key] = v
		}
	}
	put("resource", nested(m.resources))
	put("data", nested(m.data))
	put("ephemeral", nested(m.ephemeral))
	put("variable", m.variables)
	put("output", m.outputs)
	put("locals", m.locals)
	put("check", m.checks)
	providers := map[string]any{}
	for k, v := range m.providers {
		providers[k] = v
	}
	put("provider", providers)
	calls := map[string]any{}
	for k, v := range m.calls {
		calls[k] = v
	}
	put("module", calls)
	if len(m.moved) > 0 {
		doc["moved"] = m.moved
	}
	if len(m.removed) > 0 {
		doc["removed"] = m.removed
	}
	return doc
}

func nested(m map[string]map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
