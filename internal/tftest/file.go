package tftest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// File is one parsed test file.
type File struct {
	// Name is the file's path relative to the configuration folder, as
	// terraform test names it: main.tftest.hcl, tests/a.tftest.hcl.
	Name string
	// Variables are the file-level variables block's values, by name.
	Variables map[string]hcl.Expression
	Runs      []*Run
	// Mocks are the mock_provider blocks, standing in for their
	// providers in every run of the file.
	Mocks []*Mock
	// Providers are the provider blocks, configuring their providers in
	// every run of the file in place of the configuration's.
	Providers []*Provider
	// Overrides are its override_resource and override_data blocks.
	Overrides []*Override
	// Parallel is its test block's parallel argument, the default of
	// its runs' (Terraform 1.12).
	Parallel bool
}

// Provider is a provider block of a test file, decoded against its
// provider's schema at each run.
type Provider struct {
	Name      string
	Body      hcl.Body
	DeclRange hcl.Range
}

// Run is one run block.
type Run struct {
	Name string
	// Plan is command = plan; a run applies otherwise.
	Plan           bool
	Variables      map[string]hcl.Expression
	Asserts        []Assert
	ExpectFailures []hcl.Traversal
	// Module is the source of the run's module block, "" for the
	// configuration under test.
	Module string
	// StateKey is the state_key argument: runs with the same key share a
	// state; "" is the module's own.
	StateKey string
	// Options are the plan_options block's.
	Options Options
	// Providers is the providers argument: for each local name of the
	// configuration, the test file's provider (or mock) that serves it;
	// nil when the run has none, and every test-file provider serves.
	Providers map[string]string
	// ProviderRanges are where each entry's test-file provider is named.
	ProviderRanges map[string]hcl.Range
	// Overrides are its override_resource and override_data blocks,
	// which come before the file's.
	Overrides []*Override
	// Parallel is its parallel argument (Terraform 1.12), or the file's
	// test block's: it may run at the same time as the parallel runs
	// next to it that share no state and refer to none of each other.
	Parallel  bool
	DeclRange hcl.Range
	// parallelSet is set when the run gives parallel itself.
	parallelSet bool
}

// Assert is one assert block of a run.
type Assert struct {
	Condition, ErrorMessage hcl.Expression
}

var fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "run", LabelNames: []string{"name"}},
	{Type: "variables"},
	{Type: "provider", LabelNames: []string{"name"}},
	{Type: "mock_provider", LabelNames: []string{"name"}},
	{Type: "override_resource"},
	{Type: "override_data"},
	{Type: "override_module"},
	{Type: "test"},
}}

// testSchema is a test file's test block (Terraform 1.12).
var testSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "parallel"}}}

var runSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command"}, {Name: "expect_failures"}, {Name: "providers"},
		{Name: "state_key"}, {Name: "parallel"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variables"}, {Type: "assert"}, {Type: "module"}, {Type: "plan_options"},
		{Type: "override_resource"}, {Type: "override_data"}, {Type: "override_module"},
	},
}

// Options are a run's plan_options: how it plans.
type Options struct {
	RefreshOnly, SkipRefresh bool
	// Replace and Target are addresses, as -replace and -target take.
	Replace, Target []string
}

var optionsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "mode"}, {Name: "refresh"}, {Name: "replace"}, {Name: "target"},
}}

func parseOptions(b *hcl.Block) (Options, hcl.Diagnostics) {
	var o Options
	content, diags := b.Body.Content(optionsSchema)
	if a, ok := content.Attributes["mode"]; ok {
		switch hcl.ExprAsKeyword(a.Expr) {
		case "refresh-only":
			o.RefreshOnly = true
		case "normal":
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid \"mode\" keyword",
				Detail: "The \"mode\" argument requires one of the following keywords without quotes: normal or refresh-only", Subject: a.Expr.Range().Ptr()})
		}
	}
	if a, ok := content.Attributes["refresh"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if b, err := convert.Convert(v, cty.Bool); !d.HasErrors() && (err != nil || b.IsNull() || !b.IsKnown()) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid refresh",
				Detail: "The refresh argument is true or false.", Subject: a.Expr.Range().Ptr()})
		} else if err == nil && !d.HasErrors() {
			o.SkipRefresh = b.False()
		}
		if o.SkipRefresh && o.RefreshOnly {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incompatible plan options",
				Detail: "The \"refresh\" option cannot be set to false when running a test in \"refresh-only\" mode.", Subject: a.Range.Ptr()})
		}
	}
	for name, into := range map[string]*[]string{"replace": &o.Replace, "target": &o.Target} {
		a, ok := content.Attributes[name]
		if !ok {
			continue
		}
		exprs, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		for _, e := range exprs {
			t, d := hcl.AbsTraversalForExpr(e)
			diags = append(diags, d...)
			if !d.HasErrors() {
				*into = append(*into, traversalString(t))
			}
		}
	}
	return o, diags
}

// traversalString is an address as written: tether_file.a, x.b[0],
// module.m["k"].
func traversalString(t hcl.Traversal) string {
	var b strings.Builder
	for _, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			} else if s.Key.Type() == cty.Number {
				fmt.Fprintf(&b, "[%s]", s.Key.AsBigFloat().Text('f', -1))
			}
		}
	}
	return b.String()
}

var assertSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "condition", Required: true}, {Name: "error_message", Required: true},
}}

var moduleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "source", Required: true}, {Name: "version"},
}}

// Find lists the test files of the configuration folder dir in the order
// terraform test runs them: by name, the folder's own before tests/'s.
func Find(dir string) []string {
	var names []string
	for _, sub := range []string{".", "tests"} {
		for _, ext := range []string{"*.tftest.hcl", "*.tftest.json"} {
			found, _ := filepath.Glob(filepath.Join(dir, sub, ext))
			for _, f := range found {
				rel, err := filepath.Rel(dir, f)
				if err == nil {
					names = append(names, filepath.ToSlash(rel))
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// Parse reads the test file name (relative to dir) with parser p, which
// then holds its source for diagnostics.
func Parse(p *hclparse.Parser, dir, name string) (*File, hcl.Diagnostics) {
	src, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read test file", Detail: fmt.Sprintf("Reading %s failed: %v.", name, err)}}
	}
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(name, ".json") {
		f, diags = p.ParseJSON(src, name)
	} else {
		f, diags = p.ParseHCL(src, name)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	content, d := f.Body.Content(fileSchema)
	diags = append(diags, d...)
	tf := &File{Name: name, Variables: map[string]hcl.Expression{}}
	seen := map[string]hcl.Range{}
	var testBlock *hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "test":
			if testBlock != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Multiple \"test\" blocks",
					Detail: fmt.Sprintf("This test file already has a \"test\" block defined at %s.", testBlock.DefRange), Subject: b.DefRange.Ptr()})
				continue
			}
			testBlock = b
			c, d := b.Body.Content(testSchema)
			diags = append(diags, d...)
			if a, ok := c.Attributes["parallel"]; ok {
				tf.Parallel, d = boolArg(a, "parallel")
				diags = append(diags, d...)
			}
		case "variables":
			diags = append(diags, variables(b.Body, tf.Variables)...)
		case "run":
			if prev, ok := seen[b.Labels[0]]; ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate \"run\" block names",
					Detail: fmt.Sprintf("This test file already has a run named %s block defined at %s.", b.Labels[0], prev), Subject: b.DefRange.Ptr()})
				continue
			}
			seen[b.Labels[0]] = b.DefRange
			r, d := parseRun(b)
			diags = append(diags, d...)
			tf.Runs = append(tf.Runs, r)
		case "provider":
			body := b.Body
			content, rest, d := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}}})
			diags = append(diags, d...)
			name, d := aliased(b.Labels[0], content)
			diags = append(diags, d...)
			tf.Providers = append(tf.Providers, &Provider{Name: name, Body: rest, DeclRange: b.DefRange})
		case "mock_provider":
			m, d := parseMock(p, dir, b)
			diags = append(diags, d...)
			tf.Mocks = append(tf.Mocks, m)
		case "override_resource", "override_data", "override_module":
			tf.Overrides, diags = addOverride(tf.Overrides, b, false, diags)
		default:
			diags = append(diags, unsupported(b))
		}
	}
	for _, r := range tf.Runs {
		if !r.parallelSet {
			r.Parallel = tf.Parallel
		}
	}
	return tf, diags
}

// boolArg is the value of a, which must be true or false.
func boolArg(a *hcl.Attribute, name string) (bool, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return false, diags
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil || b.IsNull() || !b.IsKnown() {
		return false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: fmt.Sprintf("Invalid %s", name),
			Detail: fmt.Sprintf("The %s argument is true or false, not %s.", name, v.Type().FriendlyName()), Subject: a.Expr.Range().Ptr()}}
	}
	return b.True(), nil
}

var mockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "alias"}, {Name: "source"}, {Name: "override_during"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "mock_resource", LabelNames: []string{"type"}},
		{Type: "mock_data", LabelNames: []string{"type"}},
		{Type: "override_resource"}, {Type: "override_data"},
	},
}

var mockDefaultsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "defaults"}, {Name: "override_during"}}}

// mockDataSchema is a mock data file's (*.tfmock.hcl, *.tfmock.json): the
// blocks of a mock_provider, without its arguments.
var mockDataSchema = &hcl.BodySchema{Blocks: mockSchema.Blocks}

func parseMock(p *hclparse.Parser, dir string, b *hcl.Block) (*Mock, hcl.Diagnostics) {
	m := newMock(b.Labels[0], b.DefRange)
	content, diags := b.Body.Content(mockSchema)
	m.UseForPlan, diags = overrideDuring(content, false, diags)
	var d hcl.Diagnostics
	m.Name, d = aliased(m.Name, content)
	diags = append(diags, d...)
	diags = append(diags, m.addBlocks(content.Blocks)...)
	if a, ok := content.Attributes["source"]; ok {
		var src cty.Value
		src, d = a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if s, err := convert.Convert(src, cty.String); err != nil || s.IsNull() || !s.IsKnown() {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid source",
					Detail: "The source argument of a mock_provider is the path of a folder of mock data files, a string.", Subject: a.Expr.Range().Ptr()})
			} else {
				diags = append(diags, m.load(p, dir, s.AsString(), a.Expr.Range())...)
			}
		}
	}
	return m, diags
}

func newMock(name string, at hcl.Range) *Mock {
	return &Mock{Name: name, Resources: map[string]Defaults{}, Data: map[string]Defaults{}, DeclRange: at}
}

// addBlocks adds a mock_provider's (or a mock data file's) mock_resource,
// mock_data and override blocks to m; a second block for the same type or
// target is an error, as in terraform test.
func (m *Mock) addBlocks(blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, blk := range blocks {
		into := m.Resources
		switch blk.Type {
		case "mock_resource":
		case "mock_data":
			into = m.Data
		case "override_resource", "override_data":
			m.Overrides, diags = addOverride(m.Overrides, blk, m.UseForPlan, diags)
			continue
		default:
			diags = append(diags, unsupported(blk))
			continue
		}
		if prev, ok := into[blk.Labels[0]]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Duplicate %s block", blk.Type),
				Detail: fmt.Sprintf("A %s block for %s has already been defined at %s.", blk.Type, blk.Labels[0], prev.Block), Subject: blk.LabelRanges[0].Ptr()})
			continue
		}
		c, d := blk.Body.Content(mockDefaultsSchema)
		diags = append(diags, d...)
		var plan bool
		plan, diags = overrideDuring(c, m.UseForPlan, diags)
		a, ok := c.Attributes["defaults"]
		if !ok {
			into[blk.Labels[0]] = Defaults{Value: cty.EmptyObjectVal, Range: blk.DefRange, Block: blk.DefRange, UseForPlan: plan}
			continue
		}
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid defaults",
				Detail: fmt.Sprintf("The defaults of a %s block are an object of attribute values, not %s.", blk.Type, v.Type().FriendlyName()), Subject: a.Expr.Range().Ptr()})
			continue
		}
		into[blk.Labels[0]] = Defaults{Value: v, Range: a.Expr.Range(), Block: blk.DefRange, UseForPlan: plan}
	}
	return diags
}

// load adds the mock data files (*.tfmock.hcl, *.tfmock.json) of the
// folder source (relative to the configuration folder dir, as terraform
// test takes it) to m, where m's own blocks set nothing for the same type
// or target: those win. Two files setting the same are an error.
func (m *Mock) load(p *hclparse.Parser, dir, source string, at hcl.Range) hcl.Diagnostics {
	folder := source
	if !filepath.IsAbs(folder) {
		folder = filepath.Join(dir, folder)
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Failed to read mock data directory",
			Detail: fmt.Sprintf("Mock data directory %s does not exist or cannot be read.", source), Subject: at.Ptr()}}
	}
	files := newMock(m.Name, m.DeclRange)
	files.UseForPlan = m.UseForPlan
	var diags hcl.Diagnostics
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".tfmock.hcl") && !strings.HasSuffix(name, ".tfmock.json") ||
			strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") || strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(folder, name))
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Failed to read mock data file",
				Detail: fmt.Sprintf("Reading %s failed: %v.", filepath.Join(source, name), err), Subject: at.Ptr()})
			continue
		}
		fname := filepath.ToSlash(filepath.Join(source, name))
		var f *hcl.File
		var d hcl.Diagnostics
		if strings.HasSuffix(name, ".json") {
			f, d = p.ParseJSON(src, fname)
		} else {
			f, d = p.ParseHCL(src, fname)
		}
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		content, d := f.Body.Content(mockDataSchema)
		diags = append(diags, d...)
		diags = append(diags, files.addBlocks(content.Blocks)...)
	}
	for k, v := range files.Resources {
		if _, ok := m.Resources[k]; !ok {
			m.Resources[k] = v
		}
	}
	for k, v := range files.Data {
		if _, ok := m.Data[k]; !ok {
			m.Data[k] = v
		}
	}
	for _, o := range files.Overrides {
		if !slices.ContainsFunc(m.Overrides, func(prev *Override) bool { return prev.Target == o.Target }) {
			m.Overrides = append(m.Overrides, o)
		}
	}
	return diags
}

// aliased is the name a provider or mock_provider block of local name
// local stands in for: local, or local.ALIAS with its alias argument.
func aliased(local string, content *hcl.BodyContent) (string, hcl.Diagnostics) {
	a, ok := content.Attributes["alias"]
	if !ok {
		return local, nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return local, diags
	}
	if v.Type() != cty.String || v.IsNull() || !hclsyntax.ValidIdentifier(v.AsString()) {
		return local, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid provider configuration alias",
			Detail: "An alias must be a valid name. A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.", Subject: a.Expr.Range().Ptr()}}
	}
	return local + "." + v.AsString(), nil
}

// addOverride is list with the override block b added (plan is its
// default override_during), and diags with what decoding it said: a
// second block for the same target is an error, as in terraform test.
func addOverride(list []*Override, b *hcl.Block, plan bool, diags hcl.Diagnostics) ([]*Override, hcl.Diagnostics) {
	o, d := parseOverride(b, plan)
	diags = append(diags, d...)
	if o == nil {
		return list, diags
	}
	for _, prev := range list {
		if prev.Target == o.Target {
			return list, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Duplicate %s block", b.Type),
				Detail: fmt.Sprintf("An %s block targeting %s has already been defined at %s.", b.Type, o.Target, prev.Range), Subject: b.DefRange.Ptr()})
		}
	}
	return append(list, o), diags
}

// unsupported is the error for a block this runner does not carry out
// yet: a test that passed without it would not have tested what it says.
func unsupported(b *hcl.Block) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported test block",
		Detail:  fmt.Sprintf("tether test does not run %s blocks yet; run this file with terraform test.", b.Type),
		Subject: b.DefRange.Ptr()}
}

func variables(body hcl.Body, into map[string]hcl.Expression) hcl.Diagnostics {
	attrs, diags := body.JustAttributes()
	for name, a := range attrs {
		into[name] = a.Expr
	}
	return diags
}

// providerRef is a provider configuration reference as the test's
// provider names are: tether, or tether.west; ok is false for any other
// traversal.
func providerRef(t hcl.Traversal) (string, bool) {
	switch len(t) {
	case 1:
		return t.RootName(), true
	case 2:
		if a, ok := t[1].(hcl.TraverseAttr); ok {
			return t.RootName() + "." + a.Name, true
		}
	}
	return "", false
}

func parseRun(b *hcl.Block) (*Run, hcl.Diagnostics) {
	r := &Run{Name: b.Labels[0], Variables: map[string]hcl.Expression{}, DeclRange: b.DefRange}
	content, diags := b.Body.Content(runSchema)
	if a, ok := content.Attributes["command"]; ok {
		switch hcl.ExprAsKeyword(a.Expr) {
		case "plan":
			r.Plan = true
		case "apply":
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid \"command\" keyword",
				Detail: "The \"command\" argument requires one of the following keywords without quotes: apply or plan.", Subject: a.Expr.Range().Ptr()})
		}
	}
	if a, ok := content.Attributes["expect_failures"]; ok {
		exprs, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		for _, e := range exprs {
			t, d := hcl.AbsTraversalForExpr(e)
			diags = append(diags, d...)
			if !d.HasErrors() {
				r.ExpectFailures = append(r.ExpectFailures, t)
			}
		}
	}
	if a, ok := content.Attributes["state_key"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if s, err := convert.Convert(v, cty.String); err != nil || s.IsNull() {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid state_key",
					Detail: "The state_key argument is a string.", Subject: a.Expr.Range().Ptr()})
			} else {
				r.StateKey = s.AsString()
			}
		}
	}
	if a, ok := content.Attributes["parallel"]; ok {
		var d hcl.Diagnostics
		r.Parallel, d = boolArg(a, "parallel")
		r.parallelSet = true
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["providers"]; ok {
		r.Providers, r.ProviderRanges = map[string]string{}, map[string]hcl.Range{}
		pairs, d := hcl.ExprMap(a.Expr)
		diags = append(diags, d...)
		for _, p := range pairs {
			child, d1 := hcl.AbsTraversalForExpr(p.Key)
			parent, d2 := hcl.AbsTraversalForExpr(p.Value)
			diags = append(diags, d1...)
			diags = append(diags, d2...)
			if d1.HasErrors() || d2.HasErrors() {
				continue
			}
			c, ok1 := providerRef(child)
			pr, ok2 := providerRef(parent)
			if !ok1 || !ok2 {
				bad := p.Key
				if ok1 {
					bad = p.Value
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid provider configuration reference",
					Detail: "The providers argument requires a provider type name, optionally followed by a period and then a configuration alias.", Subject: bad.Range().Ptr()})
				continue
			}
			r.Providers[c] = pr
			r.ProviderRanges[c] = parent.SourceRange()
		}
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "variables":
			diags = append(diags, variables(blk.Body, r.Variables)...)
		case "plan_options":
			o, d := parseOptions(blk)
			diags = append(diags, d...)
			r.Options = o
		case "assert":
			c, d := blk.Body.Content(assertSchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			cond := c.Attributes["condition"].Expr
			if len(cond.Variables()) == 0 {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid assert expression",
					Detail:  "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
					Subject: cond.Range().Ptr()})
				continue
			}
			r.Asserts = append(r.Asserts, Assert{Condition: cond, ErrorMessage: c.Attributes["error_message"].Expr})
		case "module":
			c, d := blk.Body.Content(moduleSchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			if _, ok := c.Attributes["version"]; ok {
				diags = append(diags, unsupported(blk))
				continue
			}
			src, d := c.Attributes["source"].Expr.Value(nil)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			s := src.AsString()
			if !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported module source",
					Detail:  fmt.Sprintf("tether test runs local modules (./ or ../) in a run block, not %q yet.", s),
					Subject: c.Attributes["source"].Expr.Range().Ptr()})
				continue
			}
			r.Module = s
		case "override_resource", "override_data", "override_module":
			r.Overrides, diags = addOverride(r.Overrides, blk, false, diags)
		default:
			diags = append(diags, unsupported(blk))
		}
	}
	return r, diags
}
