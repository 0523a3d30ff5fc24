package hclconfig

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/provider"
)

var resourceMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "count"},
		{Name: "for_each"},
		{Name: "provider"},
		{Name: "depends_on"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "lifecycle"},
		{Type: "provisioner", LabelNames: []string{"type"}},
		{Type: "connection"},
	},
}

// setsAny reports whether body has an argument or a block (well formed or
// not) that schema names.
func setsAny(body *hclsyntax.Body, schema *hcl.BodySchema) bool {
	for _, a := range schema.Attributes {
		if _, ok := body.Attributes[a.Name]; ok {
			return true
		}
	}
	for _, blk := range body.Blocks {
		for _, bs := range schema.Blocks {
			if blk.Type == bs.Type {
				return true
			}
		}
	}
	return false
}

func (m *module) resource(b *hcl.Block, kind config.Kind) {
	l := m.l
	typ, name := b.Labels[0], b.Labels[1]
	kindPrefix := ""
	switch kind {
	case config.DataSource:
		kindPrefix = "data."
	case config.Ephemeral:
		kindPrefix = "ephemeral."
	}
	if !hclsyntaxValidName(name) {
		l.errorf(b.LabelRanges[1], "Invalid resource name", "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.")
		return
	}
	rn := &resourceNode{n: config.Node{Kind: kind, Addr: m.resourceAddr(kindPrefix, typ, name), Type: typ, Name: name, Module: m.path, DeclRange: b.DefRange}}
	n := &rn.n
	if !l.declare(n) {
		return
	}
	var meta *hcl.BodyContent
	var remain hcl.Body
	if sb, ok := b.Body.(*hclsyntax.Body); ok && !setsAny(sb, resourceMetaSchema) {
		// There is nothing to take apart, and the body as parsed reads as
		// the remainder would: PartialContent's remainder is a copy with
		// maps of its own, held per resource for the whole run.
		meta, remain = &hcl.BodyContent{}, sb
	} else {
		var d hcl.Diagnostics
		meta, remain, d = b.Body.PartialContent(resourceMetaSchema)
		l.diags = append(l.diags, d...)
	}
	rn.s = config.Syntax{Body: remain, DependsOn: dependsOnTraversals(meta.Attributes["depends_on"])}
	n.Syntax = &rn.s

	local, alias, rng := impliedProvider(typ), "", b.LabelRanges[0]
	var providerKey hcl.Expression
	if a, ok := meta.Attributes["provider"]; ok {
		var valid bool
		local, alias, providerKey, valid = keyedProviderRef(a.Expr)
		rng = a.Expr.Range()
		if !valid {
			l.errorf(a.Expr.Range(), "Invalid provider reference",
				"The provider argument names a provider configuration by its local name and alias, such as `provider = aws.west`, without quotes.")
			m.terraformBlock(n, b.Body, &resourceArgs)
			return
		}
	}
	pa, src, ok := m.providerConfig(local, alias, rng)
	if !ok {
		m.terraformBlock(n, b.Body, &resourceArgs)
		return
	}
	n.Provider, n.Source = pa, l.sourceString(src)
	_, declared := m.required[local]
	n.SourceImplied = !declared
	var repeatKind string
	n.Repeat, repeatKind = l.repeat(meta.Attributes, m, n)
	var lc *hcl.Block
	for _, blk := range meta.Blocks {
		switch blk.Type {
		case "provisioner", "connection":
			l.errorf(blk.DefRange, fmt.Sprintf("%s blocks are not supported", blk.Type),
				"Tether does not run provisioners; model the work as a resource (for example a tether_value with depends_on) instead.")
		case "lifecycle":
			lc = blk
		}
	}
	if a, ok := meta.Attributes["depends_on"]; ok {
		n.DependsOn = m.dependsOn(a)
	}

	schema := l.resourceSchema(n, b)
	if schema == nil {
		m.terraformBlock(n, b.Body, &resourceArgs)
		return
	}
	spec := l.spec(n, schema.Block)
	// A body of arguments only that argsOnly accepts has what checkBody
	// would find, its arguments, and nothing checkBody reports.
	var args *hclsyntax.Body
	if sb, ok := remain.(*hclsyntax.Body); ok && remain == b.Body && l.argsOnly(sb, schema.Block) {
		args = sb
	}
	var content *hcl.BodyContent
	if args == nil {
		content = l.checkBody(remain, spec, schema.Block)
	}
	// The decoder is made here, not on the heap: a held body's evaluation
	// keeps only a copy of its held decoder (see bodyEval.use).
	decode := makeSchemaDecoder(remain, spec, schema.Block)
	if decode.plain && args != nil {
		decode.spec, decode.specKey = bodySpecOf(l, n, spec, args.Attributes, nil)
		decode.args = args
	} else if decode.plain && content != nil {
		decode.spec, decode.specKey = l.bodySpec(n, spec, content)
	}
	traversals := decode.variables()
	if decode.args != nil {
		// From here on the body is read only as held (see heldBody).
		if h := l.holdBody(b, decode.args, &rn.held); h != nil {
			decode.hold(h, l.heldPlan(decode.specKey, decode.spec))
			remain = h
			n.Syntax.Body = h
		}
	}
	rn.ev.use(m, &decode)
	n.Attrs = bodyAttrs(remain)
	m.setTerraform(n, &rn.tf, remain, l.resourceKinds(schema.Block))
	if lc != nil {
		traversals = append(traversals, m.lifecycle(n, lc, schema.Block, repeatKind)...)
	}
	l.pending = append(l.pending, pendingStep{res: resourcePending{rn: rn, traversals: traversals, repeatKind: repeatKind, providerKey: providerKey, rng: rng}})
}

// resourceAddr is a resource's address, m.prefix(kindPrefix+typ+"."+name),
// carved from a block of the loader's shared with others: each of a
// hundred thousand resources holds its address for the whole run, and an
// allocation of its own for each cost more than its bytes. The bytes of a
// block are never written again once an address is made of them.
func (m *module) resourceAddr(kindPrefix, typ, name string) string {
	l := m.l
	n := len(kindPrefix) + len(typ) + 1 + len(name)
	if m.path != "" {
		n += len(m.path) + 1
	}
	if n > cap(l.addrs)-len(l.addrs) {
		if n > addrBlock/8 {
			return m.prefix(kindPrefix + typ + "." + name)
		}
		l.addrs = make([]byte, 0, addrBlock)
	}
	start := len(l.addrs)
	if m.path != "" {
		l.addrs = append(append(l.addrs, m.path...), '.')
	}
	l.addrs = append(append(append(append(l.addrs, kindPrefix...), typ...), '.'), name...)
	b := l.addrs[start:]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// addrBlock is the size of the loader's blocks of addresses.
const addrBlock = 4096

// resourceNode is a resource's node with its syntax, its held body, its
// evaluation and its Terraform form, made at once: a hundred thousand
// resources are held for a whole run, and each part made apart (a closure
// for its Eval and Terraform, a decoder, a held body) was an allocation
// of its own.
type resourceNode struct {
	n    config.Node
	s    config.Syntax
	ev   bodyEval
	tf   blockTerraform
	held heldOne
}

// pendingStep is a resolution to run once every declaration is known:
// run, or, when run is nil, res. A resource's is data, not a closure made
// for each.
type pendingStep struct {
	run func()
	res resourcePending
}

func (p *pendingStep) do() {
	if p.run != nil {
		p.run()
		return
	}
	p.res.resolve()
}

// later runs f once every declaration is known.
func (l *loader) later(f func()) {
	l.pending = append(l.pending, pendingStep{run: f})
}

// runPending runs the pending resolutions, in the order they were added.
func (l *loader) runPending() {
	steps := l.pending
	for i := range steps {
		steps[i].do()
	}
}

// resourcePending is what resolving a resource's references needs.
type resourcePending struct {
	rn          *resourceNode
	traversals  []hcl.Traversal // its body's and its lifecycle's
	repeatKind  string
	providerKey hcl.Expression
	rng         hcl.Range // the provider reference's
}

func (p *resourcePending) resolve() {
	rn, n := p.rn, &p.rn.n
	m := rn.ev.m
	refs := m.resolve(n, p.traversals, p.repeatKind)
	m.resolveDependsOn(n)
	m.providerKey(n, p.providerKey, p.rng, p.repeatKind)
	m.setEval(n, &rn.ev, refs)
}

// bodyEval evaluates a resource's or a provider's body (config.Evaluator)
// in the scope of refs: by a held body's own decoder when it has one,
// else by its schema decoder.
type bodyEval struct {
	m      *module
	refs   []evalRef
	decode *schemaDecoder // nil when held decodes
	held   heldDecoder
}

// use makes e decode by decode: a copy of its held decoder when it has
// one, so that the schema decoder is not held for the run, else a copy of
// it.
func (e *bodyEval) use(m *module, decode *schemaDecoder) {
	e.m = m
	if decode.isHeld {
		e.held = decode.heldDec
		return
	}
	d := *decode
	e.decode = &d
}

func (e *bodyEval) Evaluate(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
	if e.decode == nil {
		return e.held.decode(func() *hcl.EvalContext { return e.m.evalContext(e.refs, scope, inst, cty.NilVal) })
	}
	return e.decode.decode(e.m.evalContext(e.refs, scope, inst, cty.NilVal))
}

// setEval gives n its evaluation by e in the scope of refs, with
// n.Constant saying whether its body is literal.
func (m *module) setEval(n *config.Node, e *bodyEval, refs []evalRef) {
	e.refs = refs
	n.Constant = e.decode == nil && e.held.literal
	n.Eval = e
}

// schemaDecoder decodes a body by a provider's schema, as Terraform does:
// its dynamic blocks expanded at any depth, then its attributes written as
// blocks read as attributes (schemabody.Fixup), then hcldec. A body with
// neither, most of them, is decoded by hcldec alone: dynblock's walk costs
// a copy of every body.
type schemaDecoder struct {
	body    hcl.Body
	spec    hcldec.Spec
	block   *provider.Block
	dynamic bool // the body has a dynamic block at some depth
	// plain is set when the body needs neither expansion nor fixup; spec
	// may then be narrowed to what the body sets (loader.bodySpec).
	plain bool
	// args is set when the body is also arguments only, as parsed (no
	// nested block, nothing hidden by the meta-arguments' PartialContent),
	// with spec narrowed to it: nearly every resource body. It is read
	// without hcldec's walks of the whole spec (see argsBody).
	args *hclsyntax.Body
	// isHeld is set in place of args once the body is held (heldBody),
	// and body is then the heldBody: the parsed body is no longer kept.
	// heldDec then decodes it.
	isHeld  bool
	heldDec heldDecoder
	// specKey names spec when it is narrowed (see bodySpec).
	specKey bodySpecKey
}

// hold makes the decoder read h, the heldBody of its args, with plan, the
// heldPlan of its spec.
func (d *schemaDecoder) hold(h *heldBody, plan *heldPlan) {
	d.body, d.args = h, nil
	if hd, ok := newHeldDecoder(h, plan); ok {
		d.heldDec, d.isHeld = hd, true
	}
}

func newSchemaDecoder(body hcl.Body, spec hcldec.Spec, block *provider.Block) *schemaDecoder {
	d := makeSchemaDecoder(body, spec, block)
	return &d
}

func makeSchemaDecoder(body hcl.Body, spec hcldec.Spec, block *provider.Block) schemaDecoder {
	d := schemaDecoder{body: body, spec: spec, block: block, dynamic: schemabody.HasDynamic(body)}
	d.plain = !d.dynamic && !schemabody.AsBlocks(block)
	return d
}

// variables are the references of the body's expressions.
func (d *schemaDecoder) variables() []hcl.Traversal {
	if d.args != nil {
		return argsVariables(d.args)
	}
	if d.plain {
		return hcldec.Variables(d.body, d.spec)
	}
	return schemabody.Variables(d.body, d.block)
}

func (d *schemaDecoder) decode(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if d.args != nil {
		return hcldec.Decode(argsBody{d.args}, d.spec, ctx)
	}
	if h, ok := d.body.(*heldBody); ok {
		return hcldec.Decode(heldRefs{h}, d.spec, ctx)
	}
	body := d.body
	if d.dynamic {
		body = schemabody.Expand(body, d.block, ctx)
	}
	return hcldec.Decode(schemabody.Fixup(referenceBody{body}, d.block), d.spec, ctx)
}

// SchemaBody reads a body by a provider's schema as the configuration's
// own blocks are read (dynamic blocks expanded at any depth, attributes
// written as blocks), for front-ends that read provider configurations
// outside a configuration folder: terraform test files' provider blocks.
// It returns the references of the body's expressions and the function
// that decodes it in an evaluation context that defines them.
func SchemaBody(body hcl.Body, b *provider.Block) ([]hcl.Traversal, func(*hcl.EvalContext) (cty.Value, hcl.Diagnostics)) {
	d := newSchemaDecoder(body, schemabody.Spec(b), b)
	return d.variables(), d.decode
}

// impliedProvider is Terraform's rule: a resource type belongs to the
// provider named by its prefix up to the first underscore.
func impliedProvider(typ string) string {
	if i := strings.IndexByte(typ, '_'); i > 0 {
		return typ[:i]
	}
	return typ
}

func (l *loader) resourceSchema(n *config.Node, b *hcl.Block) *provider.ResourceSchema {
	ps := l.providerSchema(n.Source, b.LabelRanges[0])
	if ps == nil {
		return nil
	}
	types := ps.Resources
	switch n.Kind {
	case config.DataSource:
		types = ps.DataSources
	case config.Ephemeral:
		types = ps.EphemeralResources
	}
	rs, ok, err := types.Get(n.Type)
	switch {
	case err != nil:
		l.errorf(b.LabelRanges[0], "Invalid provider schema",
			"Provider %s declares %s type %q, but %s.", displaySource(n.Source), n.Kind, n.Type, err)
		return nil
	case !ok:
		l.errorf(b.LabelRanges[0], fmt.Sprintf("Unknown %s type %q", n.Kind, n.Type),
			"Provider %s has no %s type %q.%s", displaySource(n.Source), n.Kind, n.Type, didYouMean(n.Type, types.Names()))
		return nil
	}
	return rs
}

// specKey names a resource type's spec.
type specKey struct {
	source string
	kind   config.Kind
	typ    string
}

func (l *loader) spec(n *config.Node, b *provider.Block) hcldec.Spec {
	key := specKey{n.Source, n.Kind, n.Type}
	if s, ok := l.specs[key]; ok {
		return s
	}
	s := schemabody.Spec(b)
	l.specs[key] = s
	return s
}

// bodySpec is spec for decoding a resource body without dynamic blocks
// and with the content given, which has all it has and nothing the spec
// does not know. Each optional argument and nested block type that the
// body does not set is a literal there, the value hcldec decodes its
// absence to, made once per resource type; what the body sets, and what it
// must set, is left to hcldec. Decoding the whole spec, hcldec works
// through every argument of the schema for every body (building its body
// schema anew each time), and builds each absent nested block type's value
// with a new copy of the block's object type: aws_s3_bucket has over forty
// arguments and ten block types, a configuration sets two, and the plan
// keeps every configuration (7.7 MB of those types live at the peak for
// 1,000 buckets). The specs are kept by resource type and what is set.
func (l *loader) bodySpec(n *config.Node, spec hcldec.Spec, content *hcl.BodyContent) (hcldec.Spec, bodySpecKey) {
	return bodySpecOf(l, n, spec, content.Attributes, content.Blocks)
}

// bodySpecKey names a resource type's spec narrowed to what a body sets:
// the names set, sorted and joined by commas.
type bodySpecKey struct {
	specKey
	present string
}

// bodySpecOf is bodySpec of a body that sets attrs and blocks.
func bodySpecOf[A any](l *loader, n *config.Node, spec hcldec.Spec, attrs map[string]A, blocks hcl.Blocks) (hcldec.Spec, bodySpecKey) {
	obj, ok := spec.(hcldec.ObjectSpec)
	if !ok {
		return spec, bodySpecKey{}
	}
	names := make([]string, 0, len(attrs)+len(blocks))
	for name := range attrs {
		names = append(names, name)
	}
	for _, b := range blocks {
		names = append(names, b.Type)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	key := bodySpecKey{specKey{n.Source, n.Kind, n.Type}, strings.Join(names, ",")}
	if s, ok := l.bodySpecs[key]; ok {
		return s, key
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		present[name] = true
	}
	out := make(hcldec.ObjectSpec, len(obj))
	for name, s := range obj {
		out[name] = s
		if !present[name] && optional(s) {
			absent, _ := hcldec.Decode(hcl.EmptyBody(), hcldec.ObjectSpec{name: s}, nil)
			out[name] = &hcldec.LiteralSpec{Value: absent.GetAttr(name)}
		}
	}
	l.bodySpecs[key] = out
	return out, key
}

// optional reports whether s is the spec of an argument or a nested block
// type that may be left out: its absence then decodes to a constant, with
// no error.
func optional(s hcldec.Spec) bool {
	switch s := s.(type) {
	case *hcldec.AttrSpec:
		return !s.Required
	case *hcldec.BlockSpec:
		return !s.Required
	case *hcldec.BlockListSpec:
		return s.MinItems == 0
	case *hcldec.BlockTupleSpec:
		return s.MinItems == 0
	case *hcldec.BlockSetSpec:
		return s.MinItems == 0
	case *hcldec.BlockMapSpec, *hcldec.BlockObjectSpec:
		return true
	}
	return false
}

// checkBody finds what can be found without values: unknown and missing
// arguments, and arguments that only the provider may set. It returns the
// body's content, or nil if it found anything.
func (l *loader) checkBody(body hcl.Body, spec hcldec.Spec, block *provider.Block) *hcl.BodyContent {
	schema, ok := l.schemas[block]
	if !ok {
		schema = hcldec.ImpliedSchema(spec)
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: "dynamic", LabelNames: []string{"type"}})
		l.schemas[block] = schema
	}
	// An attribute the provider lets configurations write as blocks is
	// blocks here unless the body sets it as an attribute.
	asBlocks := schemabody.Names(block)
	schema = schemabody.Effective(schema, body, asBlocks, true)
	before := len(l.diags)
	content, d := body.Content(schema)
	for _, diag := range d {
		// HCL suggests a name itself where the schema has a close one.
		if (diag.Summary == "Unsupported argument" || diag.Summary == "Unsupported block type") && !strings.Contains(diag.Detail, "Did you mean") {
			diag.Detail += suggestFromSchema(diag, block)
		}
	}
	l.diags = append(l.diags, d...)
	if content == nil {
		return nil
	}
	co := schemabody.ComputedOnly(block)
	for name, a := range content.Attributes {
		if co[name] {
			l.errorf(a.NameRange, fmt.Sprintf("Value for unconfigurable attribute %q", name),
				"%q is computed by the provider after apply; remove it from the configuration.", name)
		}
	}
	for _, b := range content.Blocks {
		if co[b.Type] {
			l.errorf(b.TypeRange, fmt.Sprintf("Value for unconfigurable attribute %q", b.Type),
				"%q is computed by the provider after apply; remove it from the configuration.", b.Type)
		}
		if b.Type != "dynamic" {
			continue
		}
		if asBlocks[b.Labels[0]] && content.Attributes[b.Labels[0]] != nil {
			// Written as an attribute too, it is one (as in Terraform,
			// whose message this is).
			l.errorf(b.LabelRanges[0], "Unsupported block type", "Blocks of type %q are not expected here.", b.Labels[0])
			continue
		}
		if _, ok := block.BlockTypes[b.Labels[0]]; !ok && !asBlocks[b.Labels[0]] {
			l.errorf(b.LabelRanges[0], fmt.Sprintf("Unsupported block type %q", b.Labels[0]),
				"A dynamic block generates blocks of the type named by its label, and this resource has no %q blocks.%s", b.Labels[0], didYouMean(b.Labels[0], block.BlockTypeNames()))
			continue
		}
		inner, _, _ := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "content"}}})
		if inner != nil && len(inner.Blocks) == 0 {
			l.errorf(b.DefRange, "Missing content block",
				"A dynamic block needs a content block that describes each generated %q block: write content { ... } inside it.", b.Labels[0])
		}
	}
	if len(l.diags) > before {
		return nil
	}
	return content
}

// argsContent is checkBody's content for a body of arguments only, as
// parsed (nothing hidden by a PartialContent), that sets only arguments
// the schema has and configuration may set, and every required one: what
// body.Content gives such a body, without hclsyntax's maps of hidden,
// wanted and extraneous items, for nearly every resource. It returns nil
// for any other body, which checkBody reads and reports on.
func (l *loader) argsContent(sb *hclsyntax.Body, block *provider.Block) *hcl.BodyContent {
	if !l.argsOnly(sb, block) {
		return nil
	}
	attrs := make(hcl.Attributes, len(sb.Attributes))
	for name, a := range sb.Attributes {
		attrs[name] = a.AsHCLAttribute()
	}
	return &hcl.BodyContent{Attributes: attrs, MissingItemRange: sb.MissingItemRange()}
}

// argsOnly reports whether argsContent answers for sb.
func (l *loader) argsOnly(sb *hclsyntax.Body, block *provider.Block) bool {
	if block == nil || len(sb.Blocks) > 0 || schemabody.AsBlocks(block) {
		return false
	}
	required := 0
	for name := range sb.Attributes {
		a, ok := block.Attributes[name]
		if !ok || (a.Computed && !a.Optional && !a.Required) {
			return false
		}
		if a.Required {
			required++
		}
	}
	return required >= l.requiredArgs(block)
}

// requiredArgs is how many required arguments block has, counted once.
func (l *loader) requiredArgs(block *provider.Block) int {
	if n, ok := l.required[block]; ok {
		return n
	}
	n := 0
	for _, a := range block.Attributes {
		if a.Required {
			n++
		}
	}
	if l.required == nil {
		l.required = map[*provider.Block]int{}
	}
	l.required[block] = n
	return n
}

func suggestFromSchema(diag *hcl.Diagnostic, block *provider.Block) string {
	// HCL's message quotes the offending name: An argument named "x" ...
	parts := strings.Split(diag.Detail, `"`)
	if len(parts) < 2 {
		return ""
	}
	names := append(block.AttributeNames(), block.BlockTypeNames()...)
	return didYouMean(parts[1], names)
}

// dependsOnTraversals are the entries of a depends_on argument as
// written, for config.Syntax; dependsOn reports what is wrong in them.
func dependsOnTraversals(a *hcl.Attribute) []hcl.Traversal {
	if a == nil {
		return nil
	}
	exprs, _ := hcl.ExprList(a.Expr)
	var out []hcl.Traversal
	for _, e := range exprs {
		if t, d := hcl.AbsTraversalForExpr(e); !d.HasErrors() {
			out = append(out, t)
		}
	}
	return out
}

func (m *module) dependsOn(a *hcl.Attribute) []config.Ref {
	l := m.l
	exprs, d := hcl.ExprList(a.Expr)
	l.diags = append(l.diags, d...)
	var out []config.Ref
	for _, e := range exprs {
		t, d := hcl.AbsTraversalForExpr(e)
		if d.HasErrors() {
			l.errorf(e.Range(), "Invalid depends_on reference", "depends_on takes references to resources, data sources or modules, such as tether_file.a, without quotes.")
			continue
		}
		rel, ok := dependsOnAddr(t)
		if !ok {
			l.errorf(e.Range(), "Invalid depends_on reference", "References in depends_on must be to a whole object (a resource, a data source, a module, a variable or a local value), such as tether_file.a or tether_file.a[0], not to an attribute of one; %s is not one.", traversalSource(t))
			continue
		}
		out = append(out, config.Ref{Addr: m.prefix(rel), Range: e.Range()})
	}
	return out
}

// resolveDependsOn checks depends_on entries once every declaration is
// known.
func (m *module) resolveDependsOn(n *config.Node) {
	for _, d := range n.DependsOn {
		t, ok := m.l.decls[d.Addr]
		if !ok || (t.Kind != config.Resource && t.Kind != config.DataSource && t.Kind != config.Ephemeral && t.Kind != config.Module && t.Kind != config.Variable && t.Kind != config.Local) {
			m.l.errorf(d.Range, "Reference to undeclared object in depends_on", "%s is not declared in this module.", strings.TrimPrefix(d.Addr, m.path+"."))
		}
	}
}

// provider declares a provider block of the root module.
func (m *module) provider(b *hcl.Block) {
	l := m.l
	local := b.Labels[0]
	meta, remain, d := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}, {Name: "version"}, {Name: "for_each"}}})
	l.diags = append(l.diags, d...)
	alias := ""
	if a, ok := meta.Attributes["alias"]; ok {
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.String || v.IsNull() || !hclsyntaxValidName(v.AsString()) {
			l.errorf(a.Expr.Range(), "Invalid provider alias", "An alias is a literal string that is a valid name, such as \"west\".")
			return
		}
		alias = v.AsString()
	}
	if a, ok := meta.Attributes["version"]; ok {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Version constraints inside provider configuration blocks are deprecated",
			Detail:   fmt.Sprintf("The constraint is still used when installing %s; move it to required_providers in the terraform block.", local),
			Subject:  a.NameRange.Ptr(),
		})
	}
	src, ok := m.sourceOf(local, b.LabelRanges[0])
	if !ok {
		return
	}
	pa := addr.ProviderConfig{Module: m.path, Source: src, Alias: alias}.String()
	n := &config.Node{Kind: config.Provider, Addr: pa, Module: m.path, Name: refString(local, alias), Provider: pa, Source: src.String(), DeclRange: b.DefRange}
	ps := l.providerSchema(n.Source, b.LabelRanges[0])
	if ps == nil {
		return
	}
	if !l.declare(n) {
		return
	}
	kinds := plainArgs.withSchema(ps.Provider)
	m.terraformBlock(n, b.Body, &kinds)
	n.Syntax = &config.Syntax{Body: remain, Decl: &config.SyntaxDecl{Version: strings.Join(m.required[local].constraints, ", ")}}
	repeatKind := ""
	if a, ok := meta.Attributes["for_each"]; ok {
		if alias == "" {
			l.errorf(a.NameRange, "Provider for_each without alias",
				"A provider configuration repeated with for_each needs an alias, so that resources can name its instances as %s.ALIAS[KEY]; the default configuration cannot be repeated.", local)
			return
		}
		n.Repeat, repeatKind = l.repeatOf(m, n, a.Expr, true, checkForEach), "for_each"
	}
	spec := schemabody.Spec(ps.Provider)
	l.checkBody(remain, spec, orEmpty(ps.Provider))
	n.Attrs = bodyAttrs(remain)
	decode := newSchemaDecoder(remain, spec, orEmpty(ps.Provider))
	traversals := decode.variables()
	ev := &bodyEval{m: m, decode: decode}
	l.later(func() {
		refs := m.resolve(n, traversals, repeatKind)
		m.setEval(n, ev, refs)
	})
}

// providerSchema is the schema of the provider with the given source
// address, or nil after reporting at rng that Tether does not have it.
func (l *loader) providerSchema(source string, rng hcl.Range) *provider.Schema {
	if ps, ok := l.opts.Schemas[source]; ok {
		return ps
	}
	if _, reported := l.missing[source]; !reported {
		l.missing[source] = true
		l.errorf(rng, "Provider not available",
			"This configuration uses provider %s, which was not started for this run. Run \"tether init\" to install it.", displaySource(source))
	}
	return nil
}

// displaySource shortens a source address the way Terraform shows it:
// hashicorp/aws for a provider of the public registry.
func displaySource(source string) string {
	if p, err := tfaddr.ParseProviderSource(source); err == nil {
		return p.ForDisplay()
	}
	return source
}

func orEmpty(b *provider.Block) *provider.Block {
	if b == nil {
		return &provider.Block{}
	}
	return b
}

// implicitProviders declares a provider node, with an empty configuration,
// for each default provider configuration used without a provider block,
// as Terraform does.
func (l *loader) implicitProviders() {
	for _, pa := range sortedKeysOf(l.providerUses) {
		if _, ok := l.decls[pa]; ok {
			continue
		}
		use := l.providerUses[pa]
		ps := l.providerSchema(use.source.String(), use.rng)
		if ps == nil {
			continue
		}
		spec := schemabody.Spec(ps.Provider)
		n := &config.Node{Kind: config.Provider, Addr: pa, Name: use.local, Provider: pa, Source: use.source.String(), DeclRange: use.rng}
		n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
			return hcldec.Decode(hcl.EmptyBody(), spec, nil)
		})
		l.declare(n)
	}
}

func (m *module) locals(b *hcl.Block) {
	attrs, d := b.Body.JustAttributes()
	m.l.diags = append(m.l.diags, d...)
	for _, a := range sortedAttrs(attrs) {
		n := &config.Node{Kind: config.Local, Addr: m.prefix("local." + a.Name), Name: a.Name, Module: m.path, DeclRange: a.NameRange}
		if !m.l.declare(n) {
			continue
		}
		if m.localExprs == nil {
			m.localExprs = map[string]hcl.Expression{}
		}
		m.localExprs[a.Name] = a.Expr
		m.terraformExpr(n, a.Expr)
		m.expression(n, a.Expr)
	}
}

// expression sets a node's value to that of one expression.
func (m *module) expression(n *config.Node, expr hcl.Expression, extra ...hcl.Traversal) {
	traversals := append(expr.Variables(), extra...)
	m.l.later(func() {
		refs := m.resolve(n, traversals, "")
		n.Eval = config.EvalFunc(func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
			v, diags := expr.Value(m.evalContext(refs, scope, inst, cty.NilVal))
			return checkDerived(v, expr.Range(), diags)
		})
	})
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "value", Required: true},
		{Name: "description"},
		{Name: "sensitive"},
		{Name: "depends_on"},
		{Name: "ephemeral"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}},
}

func (m *module) output(b *hcl.Block) {
	l := m.l
	name := b.Labels[0]
	n := &config.Node{Kind: config.Output, Addr: m.prefix("output." + name), Name: name, Module: m.path, DeclRange: b.DefRange}
	if !l.declare(n) {
		return
	}
	m.terraformBlock(n, b.Body, &outputArgs)
	content, d := b.Body.Content(outputSchema)
	l.diags = append(l.diags, d...)
	for _, flag := range []struct {
		name string
		dst  *bool
	}{{"sensitive", &n.Sensitive}, {"ephemeral", &n.Ephemeral}} {
		if a, ok := content.Attributes[flag.name]; ok {
			v, d := a.Expr.Value(nil)
			if d.HasErrors() || v.Type() != cty.Bool || v.IsNull() {
				l.errorf(a.Expr.Range(), "Invalid "+flag.name, "%s must be true or false, written literally.", flag.name)
			} else {
				*flag.dst = v.True()
			}
		}
	}
	if n.Ephemeral && m.path == "" {
		l.errorf(b.DefRange, "Ephemeral output not allowed",
			"Ephemeral outputs are not allowed in context of a root module: the root module's outputs are recorded in state. Remove ephemeral = true, and keep ephemeral values out of this output.")
	}
	n.Syntax = &config.Syntax{DependsOn: dependsOnTraversals(content.Attributes["depends_on"]), Decl: &config.SyntaxDecl{Description: literalString(content.Attributes["description"])}}
	if a, ok := content.Attributes["value"]; ok {
		n.Syntax.Decl.Expr = a.Expr
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		n.DependsOn = m.dependsOn(a)
		l.later(func() { m.resolveDependsOn(n) })
	}
	var condTraversals []hcl.Traversal
	for _, blk := range content.Blocks {
		c, t := m.condition(n, blk, "", false)
		if c != nil {
			n.Preconditions = append(n.Preconditions, *c)
			condTraversals = append(condTraversals, t...)
		}
	}
	if a, ok := content.Attributes["value"]; ok {
		m.expression(n, a.Expr, condTraversals...)
	}
}

// literalString is the value of an argument that must be a literal
// string, "" when it is absent or not one.
func literalString(a *hcl.Attribute) string {
	if a == nil {
		return ""
	}
	if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		return v.AsString()
	}
	return ""
}

var movedSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "to", Required: true}}}

func (m *module) moved(b *hcl.Block) {
	l := m.l
	content, d := b.Body.Content(movedSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	var ends [2]string
	var isModule [2]bool
	for i, name := range []string{"from", "to"} {
		a := content.Attributes[name]
		t, d := hcl.AbsTraversalForExpr(a.Expr)
		ia, err := addr.FromTraversal(t)
		if d.HasErrors() || err != nil {
			l.errorf(a.Expr.Range(), "Invalid moved address", "%s takes an address such as tether_file.a, tether_file.a[0] or module.net, without quotes.", name)
			return
		}
		if strings.HasPrefix(ia.Resource, "data.") {
			l.errorf(a.Expr.Range(), "Invalid moved address", "Data sources cannot be moved: they hold no object. Remove the moved block; the data source is read again at its new address.")
			return
		}
		ends[i] = m.prefix(traversalSource(t))
		isModule[i] = ia.Resource == ""
	}
	if isModule[0] != isModule[1] {
		// Terraform's words (configs.decodeMovedBlock).
		l.errorf(b.DefRange, `Invalid "moved" addresses`, `The "from" and "to" addresses must either both refer to resources or both refer to modules.`)
		return
	}
	l.cfg.Moved = append(l.cfg.Moved, config.Moved{From: ends[0], To: ends[1], Module: m.path, Range: b.DefRange})
}

// traversalSource writes a traversal back as source text.
func traversalSource(t hcl.Traversal) string {
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
				b.WriteString("[" + s.Key.AsBigFloat().Text('f', -1) + "]")
			}
		}
	}
	return b.String()
}

// scopedData declares the data source of a check block: a data source
// like any other, but without count, for_each or lifecycle, and seen only
// by its check.
func (m *module) scopedData(b *hcl.Block, check string) {
	l := m.l
	meta, _, _ := b.Body.PartialContent(&hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "lifecycle"}},
	})
	bad := false
	if meta != nil {
		for _, name := range []string{"count", "for_each"} {
			if a, ok := meta.Attributes[name]; ok {
				l.errorf(a.NameRange, fmt.Sprintf("Invalid %q attribute", name), `The "count" and "for_each" meta-arguments are not supported within nested data blocks.`)
				bad = true
			}
		}
		for _, lb := range meta.Blocks {
			l.errorf(lb.DefRange, "Invalid lifecycle block", `Nested data blocks do not support "lifecycle" blocks as the lifecycle is managed by the containing block.`)
			bad = true
		}
	}
	if bad {
		return
	}
	m.resource(b, config.DataSource)
	if n, ok := l.decls[m.prefix("data."+b.Labels[0]+"."+b.Labels[1])]; ok && n.DeclRange == b.DefRange {
		n.Check = check
	}
}

var checkSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "data", LabelNames: []string{"type", "name"}}},
}

// check declares a check block: its assertions are evaluated after the
// rest and reported as warnings, as in Terraform.
func (m *module) check(b *hcl.Block) {
	l := m.l
	name := b.Labels[0]
	n := &config.Node{Kind: config.Check, Addr: m.prefix("check." + name), Name: name, Module: m.path, DeclRange: b.DefRange}
	if !l.declare(n) {
		return
	}
	m.terraformBlock(n, b.Body, &plainArgs)
	content, d := b.Body.Content(checkSchema)
	l.diags = append(l.diags, d...)
	var traversals []hcl.Traversal
	var scoped *hcl.Block
	for _, blk := range content.Blocks {
		if blk.Type == "data" {
			if scoped != nil {
				l.errorf(blk.DefRange, "Multiple data resource blocks", "This check block already has a data resource defined at %s.", rangeString(scoped.DefRange))
				continue
			}
			scoped = blk
			m.scopedData(blk, n.Addr)
			continue
		}
		c, t := m.condition(n, blk, "", false)
		if c != nil {
			n.Postconditions = append(n.Postconditions, *c)
			traversals = append(traversals, t...)
		}
	}
	if len(n.Postconditions) == 0 {
		l.errorf(b.DefRange, "Check without assertions", "A check block needs at least one assert { condition = ...; error_message = ... } block.")
	}
	l.later(func() {
		m.resolve(n, traversals, "")
		n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
			return cty.NullVal(cty.DynamicPseudoType), nil
		})
	})
}
