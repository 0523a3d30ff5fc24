package hclconfig

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Override files (override.tf, NAME_override.tf and their .tf.json, .tofu
// and .tofu.json forms)
// are merged into a module's other files by Terraform's rules, in the
// lexical order of their names: each block of an override file changes
// the block of the same kind and name that another file declares. Its
// arguments replace the base block's one by one; a nested block type it
// has replaces every base block of that type; a resource's lifecycle is
// merged argument by argument (create_before_destroy, prevent_destroy,
// ignore_changes and OpenTofu's enabled; the base's other lifecycle
// arguments stay); locals are
// replaced one by one. Validation rules, conditions, check, moved and
// import blocks and depends_on cannot be overridden, and a block with
// nothing to override is an error naming it, all as in Terraform; beyond
// Terraform, which ignores it, so is a removed block in an override file.

// isOverrideFile reports whether a file name is an override file's.
func isOverrideFile(name string) bool {
	base := strings.TrimSuffix(name, ".json")
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".tf"), ".tofu")
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return base == "override" || strings.HasSuffix(base, "_override")
}

// overrideRule says how an override file's block merges into its base.
type overrideRule struct {
	// attrs, when set, are the only arguments the override replaces; the
	// override's others are left out, as in Terraform.
	attrs map[string]bool
	// rules are nested block types that are validation rules or
	// conditions, which an override file cannot have.
	rules []string
	// nested are nested block types merged with their own rule rather
	// than replaced.
	nested map[string]*overrideRule
}

var (
	lifecycleOverride = &overrideRule{
		attrs: map[string]bool{"create_before_destroy": true, "prevent_destroy": true, "ignore_changes": true, "enabled": true},
		rules: []string{"precondition", "postcondition"},
	}
	resourceOverride = &overrideRule{nested: map[string]*overrideRule{"lifecycle": lifecycleOverride}}
	overrideRules    = map[string]*overrideRule{
		"resource": resourceOverride,
		"data":     resourceOverride,
		"variable": {rules: []string{"validation"}},
		"output":   {rules: []string{"precondition"}},
		"module":   {},
		"provider": {},
	}
)

// mergedBody is a base body with an override file's body over it.
type mergedBody struct {
	base, over hcl.Body
	rule       *overrideRule
}

func (b mergedBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	// Unlike Terraform, which reads both bodies partially, an argument
	// that neither may have is an error here, wherever it is written.
	base, d := b.base.Content(withDynamic(schema))
	over, d2 := b.over.Content(optionalSchema(withDynamic(schema)))
	return b.merge(base, over), append(d, d2...)
}

func (b mergedBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	base, baseRemain, d := b.base.PartialContent(withDynamic(schema))
	over, overRemain, d2 := b.over.PartialContent(optionalSchema(withDynamic(schema)))
	return b.merge(base, over), mergedBody{baseRemain, overRemain, b.rule}, append(d, d2...)
}

func (b mergedBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	base, d := b.base.JustAttributes()
	over, d2 := b.over.JustAttributes()
	out := hcl.Attributes{}
	for k, a := range base {
		out[k] = a
	}
	for k, a := range over {
		if b.rule.attrs == nil || b.rule.attrs[k] {
			out[k] = a
		}
	}
	return out, append(d, d2...)
}

func (b mergedBody) MissingItemRange() hcl.Range { return b.base.MissingItemRange() }

func (b mergedBody) merge(base, over *hcl.BodyContent) *hcl.BodyContent {
	out := &hcl.BodyContent{Attributes: hcl.Attributes{}, MissingItemRange: base.MissingItemRange}
	for k, a := range base.Attributes {
		out.Attributes[k] = a
	}
	for k, a := range over.Attributes {
		if b.rule.attrs == nil || b.rule.attrs[k] {
			out.Attributes[k] = a
		}
	}
	typeOf := func(blk *hcl.Block) string {
		if blk.Type == "dynamic" && len(blk.Labels) > 0 {
			return blk.Labels[0]
		}
		return blk.Type
	}
	replaced := map[string]bool{}
	nestedOver := map[string]*hcl.Block{}
	for _, blk := range over.Blocks {
		t := typeOf(blk)
		switch {
		case b.rule.nested[blk.Type] != nil:
			nestedOver[t] = blk
		default:
			replaced[t] = true
		}
	}
	for _, blk := range base.Blocks {
		t := typeOf(blk)
		if replaced[t] {
			continue
		}
		if ob, ok := nestedOver[t]; ok && blk.Type == t {
			merged := *blk
			merged.Body = mergedBody{blk.Body, ob.Body, b.rule.nested[t]}
			out.Blocks = append(out.Blocks, &merged)
			delete(nestedOver, t)
			continue
		}
		out.Blocks = append(out.Blocks, blk)
	}
	for _, blk := range over.Blocks {
		t := typeOf(blk)
		if replaced[t] {
			out.Blocks = append(out.Blocks, blk)
		} else if ob, ok := nestedOver[t]; ok && ob == blk {
			// No base block to merge into: the override's, with only what
			// it may set.
			merged := *blk
			merged.Body = mergedBody{hcl.EmptyBody(), blk.Body, b.rule.nested[t]}
			out.Blocks = append(out.Blocks, &merged)
		}
	}
	return out
}

// withDynamic adds dynamic blocks to a schema that has block types, so
// that a dynamic block of an overridden type is found in either body.
func withDynamic(s *hcl.BodySchema) *hcl.BodySchema {
	if len(s.Blocks) == 0 {
		return s
	}
	for _, b := range s.Blocks {
		if b.Type == "dynamic" {
			return s
		}
	}
	out := *s
	out.Blocks = append(append([]hcl.BlockHeaderSchema(nil), s.Blocks...), hcl.BlockHeaderSchema{Type: "dynamic", LabelNames: []string{"type"}})
	return &out
}

// optionalSchema is s with no argument required: an override sets only
// what it changes.
func optionalSchema(s *hcl.BodySchema) *hcl.BodySchema {
	out := *s
	out.Attributes = make([]hcl.AttributeSchema, len(s.Attributes))
	for i, a := range s.Attributes {
		a.Required = false
		out.Attributes[i] = a
	}
	return &out
}

// applyOverrides merges the blocks of override files, in order, into the
// module's other blocks and returns the result; terraform blocks of
// override files are returned apart, their required providers replacing
// the others' entries.
func (m *module) applyOverrides(blocks []*hcl.Block, overrides [][]*hcl.Block) (out, terraform []*hcl.Block) {
	for _, file := range overrides {
		for _, ob := range file {
			if ob.Type == "terraform" {
				terraform = append(terraform, ob)
				continue
			}
			if ob.Type == "locals" {
				m.overrideLocals(blocks, ob)
				continue
			}
			rule, ok := overrideRules[ob.Type]
			switch {
			case ob.Type == "check":
				m.l.errorf(ob.DefRange, "Can't override check blocks", "Override files cannot override check blocks.")
				continue
			case ob.Type == "moved":
				m.l.errorf(ob.DefRange, "Cannot override 'moved' blocks", "Records of moved objects can appear only in normal files, not in override files.")
				continue
			case !ok:
				m.l.errorf(ob.DefRange, fmt.Sprintf("Cannot override '%s' blocks", ob.Type),
					"%s blocks can appear only in normal files, not in override files.", strings.ToUpper(ob.Type[:1])+ob.Type[1:])
				continue
			}
			if m.overrideRules(ob.Body, rule) {
				continue
			}
			if ob.Type == "resource" || ob.Type == "data" || ob.Type == "output" || ob.Type == "module" {
				if meta, _, _ := ob.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "depends_on"}}}); meta != nil {
					if a, ok := meta.Attributes["depends_on"]; ok {
						m.l.errorf(a.NameRange, "Unsupported override", "The depends_on argument may not be overridden.")
						continue
					}
				}
			}
			i := m.overrideBase(blocks, ob)
			if i < 0 {
				if ob.Type == "provider" && providerAlias(ob) == "" {
					// An absent default configuration is an empty one,
					// which the override may configure.
					blocks = append(blocks, ob)
				}
				continue
			}
			merged := *blocks[i]
			merged.Body = mergedBody{blocks[i].Body, ob.Body, rule}
			blocks[i] = &merged
		}
	}
	return blocks, terraform
}

// overrideRules reports the validation rules and conditions an override
// block has, which it may not.
func (m *module) overrideRules(body hcl.Body, rule *overrideRule) bool {
	schema := &hcl.BodySchema{}
	for _, t := range rule.rules {
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: t})
	}
	for t := range rule.nested {
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: t})
	}
	content, _, _ := body.PartialContent(schema)
	if content == nil {
		return false
	}
	found := false
	for _, b := range content.Blocks {
		if nested, ok := rule.nested[b.Type]; ok {
			found = m.overrideRules(b.Body, nested) || found
			continue
		}
		m.l.errorf(b.DefRange, fmt.Sprintf("Can't override %s blocks", b.Type), "Override files cannot override %q blocks.", b.Type)
		found = true
	}
	return found
}

// overrideBase finds the index of the block ob overrides, reporting when
// there is none.
func (m *module) overrideBase(blocks []*hcl.Block, ob *hcl.Block) int {
	for i, b := range blocks {
		if b.Type != ob.Type || len(b.Labels) != len(ob.Labels) {
			continue
		}
		same := true
		for j := range b.Labels {
			same = same && b.Labels[j] == ob.Labels[j]
		}
		if same && (b.Type != "provider" || providerAlias(b) == providerAlias(ob)) {
			return i
		}
	}
	l := m.l
	switch ob.Type {
	case "provider":
		if alias := providerAlias(ob); alias != "" {
			l.errorf(ob.DefRange, "Missing base provider configuration for override",
				"There is no %s provider configuration with the alias %q. An override file can only override an aliased provider configuration that was already defined in a primary configuration file.", ob.Labels[0], alias)
		}
	case "variable":
		l.errorf(ob.DefRange, "Missing base variable declaration to override",
			"There is no variable named %q. An override file can only override a variable that was already declared in a primary configuration file.", ob.Labels[0])
	case "output":
		l.errorf(ob.DefRange, "Missing base output definition to override",
			"There is no output named %q. An override file can only override an output that was already defined in a primary configuration file.", ob.Labels[0])
	case "module":
		l.errorf(ob.DefRange, "Missing module call to override",
			"There is no module call named %q. An override file can only override a module call that was defined in a primary configuration file.", ob.Labels[0])
	case "resource":
		l.errorf(ob.DefRange, "Missing resource to override",
			"There is no %s resource named %q. An override file can only override a resource block defined in a primary configuration file.", ob.Labels[0], ob.Labels[1])
	case "data":
		l.errorf(ob.DefRange, "Missing data resource to override",
			"There is no %s data resource named %q. An override file can only override a data block defined in a primary configuration file.", ob.Labels[0], ob.Labels[1])
	}
	return -1
}

// overrideLocals replaces, one by one, the locals an override file's
// locals block defines.
func (m *module) overrideLocals(blocks []*hcl.Block, ob *hcl.Block) {
	attrs, d := ob.Body.JustAttributes()
	m.l.diags = append(m.l.diags, d...)
	for _, a := range sortedAttrs(attrs) {
		found := false
		for i, b := range blocks {
			if b.Type != "locals" {
				continue
			}
			base, _ := b.Body.JustAttributes()
			if _, ok := base[a.Name]; !ok {
				continue
			}
			merged := *b
			merged.Body = mergedBody{b.Body, singleAttrBody{a}, &overrideRule{}}
			blocks[i] = &merged
			found = true
			break
		}
		if !found {
			m.l.errorf(a.NameRange, "Missing base local value definition to override",
				"There is no local value named %q. An override file can only override a local value that was already defined in a primary configuration file.", a.Name)
		}
	}
}

// singleAttrBody is a body of one argument: one local of an override
// file's locals block.
type singleAttrBody struct{ a *hcl.Attribute }

func (b singleAttrBody) Content(*hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	return &hcl.BodyContent{Attributes: hcl.Attributes{b.a.Name: b.a}}, nil
}

func (b singleAttrBody) PartialContent(*hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	return &hcl.BodyContent{Attributes: hcl.Attributes{b.a.Name: b.a}}, hcl.EmptyBody(), nil
}

func (b singleAttrBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	return hcl.Attributes{b.a.Name: b.a}, nil
}

func (b singleAttrBody) MissingItemRange() hcl.Range { return b.a.Range }

// providerAlias is a provider block's alias, "" for none or one that is
// not a literal string (reported where the block is declared).
func providerAlias(b *hcl.Block) string {
	meta, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}}})
	if meta == nil {
		return ""
	}
	a, ok := meta.Attributes["alias"]
	if !ok {
		return ""
	}
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return ""
	}
	return v.AsString()
}
