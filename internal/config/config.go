package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Kind is what a node declares.
type Kind uint8

const (
	Resource Kind = iota
	DataSource
	Variable
	Local
	Output
	Provider
	// Module is a module call: it expands into module instances, and the
	// nodes declared inside the module are evaluated once per instance.
	Module
	// Check is a check block: its assertions are reported as warnings.
	Check
	// Ephemeral is an ephemeral resource: an object opened through its
	// provider while a command runs and closed before it ends, whose
	// value is never recorded.
	Ephemeral
)

func (k Kind) String() string {
	switch k {
	case Resource:
		return "resource"
	case DataSource:
		return "data source"
	case Variable:
		return "variable"
	case Local:
		return "local value"
	case Output:
		return "output"
	case Provider:
		return "provider"
	case Module:
		return "module call"
	case Check:
		return "check"
	case Ephemeral:
		return "ephemeral resource"
	}
	return "invalid"
}

// Config is a whole configuration.
type Config struct {
	// Nodes in declaration order. Addresses are unique.
	Nodes []*Node
	// Moved records renames: objects recorded at From now belong to To.
	Moved []Moved
	// Imports bring existing objects under management: import blocks,
	// and the target of `tether import`.
	Imports []Import
	// Removed are removed blocks: recorded objects of a resource or
	// module that left the configuration, to forget or to destroy.
	Removed []Removed
	// Sources holds the text of every configuration file by name, so that
	// diagnostics can show excerpts.
	Sources map[string][]byte
	// Evaluate, when the front-end has it, evaluates an expression in the
	// root module with the values scope gives (`tether console`).
	Evaluate func(src string, scope Scope) (cty.Value, hcl.Diagnostics)
	// Required are the root module's required_providers by local name,
	// when the front-end has them, for synth to write back with their
	// version constraints. Providers used and not listed are required
	// by their type's name.
	Required map[string]ProviderRequirement
	// ModuleRequired are each called module's required_providers, by
	// static module path and local name, when the front-end has them:
	// a JSON plan's configuration writes their version constraints.
	ModuleRequired map[string]map[string]ProviderRequirement
	// Files are the files a configuration needs beside its Terraform JSON
	// when synth writes it: by name relative to the output folder, the
	// path of the file to copy there (a Go program's own executable, for
	// the closures it deploys).
	Files map[string]string
	// Platform is the platform the configuration asks to be deployed on
	// (a Go program's Stack.Platform); nil when it does not say. The
	// command's --platform overrides its Name.
	Platform *Platform
	// Backend is where a Go program's Stack.Backend keeps state; nil when
	// it does not say. HCL's backend block is read apart from the rest
	// (hclconfig.Backend), before anything else is loaded, and is here
	// only where a command puts it (synth, which writes it out).
	Backend *Backend
}

// Platform is where the local runtime's resources (functions, routers,
// stores) are deployed, and its settings.
type Platform struct {
	// Name is "local" or "aws".
	Name string
	// Settings are the platform's settings by name (for aws: region,
	// profile, prefix, offline).
	Settings map[string]string
	// Tags are put on every resource of the platform that takes tags.
	Tags map[string]string
	// DeclRange is where the program chose it.
	DeclRange hcl.Range
}

// Node is one declaration.
//
// It is held for each of thousands of resources for a whole run: its
// flags are next to Kind, in one word.
type Node struct {
	Kind Kind
	// Argument is set on a module's input variables: their Eval evaluates
	// the call's argument in the calling module's instance, with the
	// module instance's count.index or each.* in Instance.
	Argument bool
	// SourceImplied is set on a resource or data source of *.tf files
	// whose provider's source no required_providers entry of its module
	// gives: the local name implies it. Terraform implies hashicorp/NAME
	// where Tether implies its built-in provider for tether.
	SourceImplied bool
	// Sensitive is set on variables and outputs declared sensitive.
	Sensitive bool
	// Ephemeral is set on variables and outputs declared ephemeral: their
	// values carry marks.Ephemeral and are never recorded, so a saved
	// plan leaves such a root variable out, to be given again to apply
	// it, as Terraform's do.
	Ephemeral bool
	// Constant is set on a resource or data source whose Eval gives the
	// same value, with the same diagnostics, in every scope and for every
	// instance: its body is made of literals only. The engine may then
	// use the value it evaluated at plan again at apply.
	Constant bool
	// Addr is the node's static address: `tether_file.a`,
	// `data.tether_file.b`, `ephemeral.testing_token.t`, `var.x`, `local.y`, `output.z`,
	// `provider.tether`, `module.net` (a call); inside a module it is
	// prefixed with the module path, `module.net.tether_file.a`.
	Addr string
	// Module is the static path of the module the node is declared in:
	// "" for the root module, "module.net", "module.net.module.sub".
	Module string
	// Type and Name of a resource or data source (`tether_file`, `a`); Name
	// alone for the other kinds.
	Type string
	Name string
	// Provider is, on a resource or data source, the address of the
	// provider configuration node that serves it, in Terraform's form
	// (`provider["registry.terraform.io/hashicorp/aws"].west`, see
	// addr.ProviderConfig); a provider configuration node has its own
	// address here too.
	Provider string
	// Source is the fully qualified source address of the provider of a
	// resource, data source or provider configuration
	// (`registry.terraform.io/hashicorp/aws`): what the engine starts.
	Source string
	// ProviderKey is set on a resource or data source whose provider
	// configuration is repeated with for_each (`provider =
	// aws.by_region[each.key]`): it evaluates, per instance, the key of
	// the provider instance that serves it.
	ProviderKey func(scope Scope, inst Instance) (cty.Value, hcl.Diagnostics)
	// ProviderKeyFromCall is set when the key comes from a module call
	// (`providers = { aws = aws.by_region[each.key] }`): the call of the
	// node's module when 1, of the module around it when 2, and so on, for
	// a module that passes the instance it was given on to its own
	// children, explicitly or by inheritance. ProviderKey is then
	// evaluated where that call is, with its module instance's
	// count.index or each.*, once per module instance.
	ProviderKeyFromCall int
	// DeclRange is where the node is declared (its block header or
	// attribute name).
	DeclRange hcl.Range
	// Attrs, when set, finds the attribute at path (a provider's
	// diagnostics name one) in the configuration, for a diagnostic to
	// point at it and name it as the user wrote it.
	Attrs Attrs

	// Refs are the nodes the node's expressions refer to, each with where
	// the reference is written. The engine orders work from them.
	Refs []Ref
	// DependsOn are explicit dependencies (depends_on), for ordering that
	// the values cannot show.
	DependsOn []Ref
	// RefKeys narrows references to instances: for a resource or data
	// source in Refs that every reference names with a constant key
	// (tether_file.a["x"], tether_file.b[0]), the keys named, by its
	// address. A node not here is referenced as a whole. A targeted
	// apply follows it, as Terraform's does, to apply only the instances
	// a target needs.
	RefKeys map[string][]cty.Value

	// Check is set on a data source declared inside a check block (a
	// scoped data source) to the check's address: only that check's
	// assertions may refer to it, what goes wrong reading it is a
	// warning, and it is read again during apply, as in Terraform.
	Check     string
	Lifecycle Lifecycle
	// Repeat, when set, makes a resource, data source or module call a
	// set of instances (count or for_each).
	Repeat *Repeat
	// Enabled, when set, makes a resource, data source, ephemeral
	// resource or module call an object that exists or not, addressed
	// without a key (OpenTofu's lifecycle { enabled = BOOL }); it is never
	// set with Repeat.
	Enabled *Enabled
	// Preconditions are checked before a resource instance is planned or
	// an output evaluated; Postconditions after a resource instance is
	// planned (when known) or applied, with self bound to it. A check
	// block's assertions are its Postconditions, reported as warnings.
	// A variable's validation rules are its Postconditions, checked in
	// the variable's own module instance with self bound to its value.
	Preconditions  []Condition
	Postconditions []Condition

	// Eval computes the node's value: a resource's or data source's
	// configuration object, a provider's configuration, a local's,
	// variable's or output's value. It is given the current values of the
	// nodes in Refs through scope: planned values (which may be unknown)
	// while planning, final values while applying. Resources are evaluated
	// against the schema the front-end was given.
	Eval Evaluator

	// Syntax is the node as written, for Terraform's JSON representation
	// of the configuration; nil when the front-end has no syntax to give.
	Syntax *Syntax

	// Terraform writes the node in Terraform's language, for `tether
	// synth` (internal/synth). It returns, in Terraform's JSON syntax, the
	// body of the node's block: for a resource, data source, provider,
	// variable, output, check or module call an object of its arguments,
	// nested blocks and meta-arguments; for a local its expression. Strings
	// in it are templates, and references in them name nodes by their
	// whole address (module.site.tether_file.page.path), whatever module
	// the node is in: synth makes them relative, passing values between
	// modules where they cross. Errors say what cannot be written in
	// Terraform's language and why. Nil means the front-end cannot write
	// this node; synth reports it. A call of a module of its own files
	// (not a Go program's component) has a "source": synth then writes
	// the call alone, not what the module declares, and a source that is
	// an absolute path, a local folder, relative to where it writes.
	Terraform Terraformer
}

// Syntax is what a declaration says before anything is evaluated: the
// `configuration` section of a JSON plan (internal/jsonplan) shows each
// expression's constant value or the references in it, as Terraform's
// does. The HCL front-end fills it in; a Go program's nodes have none,
// since their values are Go code.
type Syntax struct {
	// Body is the block's body: a resource's, data source's or provider's
	// arguments, or a module call's input arguments. Meta-arguments are in
	// it too; a reader takes the arguments a schema names.
	Body hcl.Body
	// DependsOn are the depends_on entries as written.
	DependsOn []hcl.Traversal
	// Decl is what only the other kinds declare: nil on a resource or data
	// source, whose Syntax is held for each of thousands of them (see
	// Declared).
	Decl *SyntaxDecl
}

// Declared is s.Decl, or nothing when there is none.
func (s *Syntax) Declared() SyntaxDecl {
	if s.Decl == nil {
		return SyntaxDecl{}
	}
	return *s.Decl
}

// SyntaxDecl is the part of Syntax for outputs, variables, module calls
// and provider configurations.
type SyntaxDecl struct {
	// Expr is an output's value.
	Expr hcl.Expression
	// Description is a variable's or output's description.
	Description string
	// Default is a variable's default converted to its type, cty.NilVal
	// when it has none.
	Default cty.Value
	// Source is a module call's source as written.
	Source string
	// Version is a module call's version constraint as written, or, on a
	// provider configuration, the version constraints its module's
	// required_providers put on the provider, joined by ", ".
	Version string
}

// Instance identifies the instance being evaluated: its count.index or
// each.key and each.value. Key is cty.NilVal for a node that is not
// repeated.
type Instance struct {
	Key  cty.Value
	Each cty.Value
}

// NoInstance is the Instance of a node that is not repeated.
var NoInstance = Instance{Key: cty.NilVal, Each: cty.NilVal}

// Repeat is a count or for_each argument.
type Repeat struct {
	// ForEach is set for for_each, clear for count.
	ForEach bool
	Range   hcl.Range
	// Expr is the expression as written, when the front-end has one.
	Expr hcl.Expression
	// Eval returns the count (a whole number) or the for_each collection
	// (a map or a set of strings), possibly unknown.
	Eval func(scope Scope) (cty.Value, hcl.Diagnostics)
}

// Enabled is OpenTofu's lifecycle { enabled = BOOL }.
type Enabled struct {
	Range hcl.Range
	// Eval returns whether the object is declared: a bool, possibly
	// unknown (which the engine refuses while planning).
	Eval func(scope Scope) (cty.Value, hcl.Diagnostics)
}

// Condition is a precondition, postcondition or check assertion.
type Condition struct {
	Range hcl.Range
	// Eval returns whether the condition holds (possibly unknown) and the
	// message to show when it does not. self is the resource instance's
	// object for postconditions, cty.NilVal otherwise.
	Eval func(scope Scope, inst Instance, self cty.Value) (ok cty.Value, message string, diags hcl.Diagnostics)
}

// Check evaluates the condition and reports it failed, with summary and its
// message, at Range when it is false. A condition not known yet passes.
func (c Condition) Check(scope Scope, inst Instance, self cty.Value, summary string) hcl.Diagnostics {
	ok, msg, diags := c.Eval(scope, inst, self)
	if diags.HasErrors() || !ok.IsKnown() || ok.True() {
		return diags
	}
	return append(diags, c.Failed(summary, msg))
}

// Failed is the error that the condition is false, with summary and its
// message (a default one when it has none), at Range.
func (c Condition) Failed(summary, msg string) *hcl.Diagnostic {
	if msg == "" {
		msg = "The condition is false."
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   msg,
		Subject:  c.Range.Ptr(),
	}
}

// Import is an import block: existing objects to adopt into resource
// instances of the configuration.
type Import struct {
	// To is the static address of the target resource, which the
	// configuration declares.
	To    string
	Range hcl.Range
	// Eval returns each instance to import and its import ID, evaluated
	// with the values of the target node's references (the import's
	// references are among them). An ID that is not known is an error.
	Eval func(scope Scope) ([]ImportTarget, hcl.Diagnostics)
}

// ImportTarget is one object to import.
type ImportTarget struct {
	// Addr is the resource instance address: tether_file.a["x"].
	Addr string
	ID   string
	// Range is where the import says so, for errors about it.
	Range hcl.Range
}

// Removed is a removed block.
type Removed struct {
	// From is a resource's static address or a module call's address.
	From string
	// Destroy is set when the objects are destroyed; otherwise state
	// forgets them and they live on unmanaged.
	Destroy bool
	Range   hcl.Range
}

// Moved is a moved block.
type Moved struct {
	// From and To are instance or static addresses, or module paths, as
	// written, prefixed with Module: they name objects in every instance
	// of the module the block is declared in.
	From, To string
	// Module is the static path of the module the block is declared in,
	// "" for the root module.
	Module string
	Range  hcl.Range
}

// Ref is a reference from one node to another.
type Ref struct {
	Addr  string
	Range hcl.Range
	// WholeModule is set on a reference to a module call that names no
	// output (module.net, module.net["k"]): as in Terraform, where such a
	// reference is to the module's closing node, it waits for everything
	// in the module and its children, and a resource that makes it
	// records every resource in them as a dependency.
	WholeModule bool
}

// Lifecycle holds a resource's lifecycle settings.
type Lifecycle struct {
	CreateBeforeDestroy bool
	PreventDestroy      bool
	// IgnoreChanges lists attributes whose configured value is ignored
	// once the object exists; IgnoreAllChanges ignores every attribute.
	IgnoreAllChanges bool
	IgnoreChanges    []cty.Path
	// ReplaceTriggeredBy forces a replacement when a referenced resource
	// (in the same module instance) is created, updated or replaced, or,
	// with a Path, when that attribute of it changes.
	ReplaceTriggeredBy []Trigger
}

// Trigger is one replace_triggered_by entry.
type Trigger struct {
	Ref
	Path cty.Path
}

// Scope gives an evaluation the values of the nodes it refers to.
type Scope interface {
	// Value returns the current value of the node at addr, which must be
	// one of the evaluating node's Refs.
	Value(addr string) cty.Value
}

// Run describes the run an evaluation belongs to, for the functions whose
// results depend on it.
type Run struct {
	// PlanTime is when the plan being made or applied was made.
	PlanTime time.Time
	// Applying is set while the plan is applied; while planning, values
	// that differ at each call (timestamp(), uuid()) are unknown.
	Applying bool
}

// RunScope is a Scope that knows the run it evaluates for. A Scope that is
// not one evaluates outside any run: plantimestamp() and timestamp() are
// unknown there.
type RunScope interface {
	Scope
	Run() Run
}

// ScopeFunc adapts a function to Scope.
type ScopeFunc func(addr string) cty.Value

func (f ScopeFunc) Value(addr string) cty.Value { return f(addr) }

// Evaluator computes a node's value (see Node.Eval). An interface rather
// than a function, as Attrs, so that a front-end's node can answer itself
// without a closure made for each of a hundred thousand resources.
type Evaluator interface {
	Evaluate(scope Scope, inst Instance) (cty.Value, hcl.Diagnostics)
}

// EvalFunc adapts a function to Evaluator.
type EvalFunc func(scope Scope, inst Instance) (cty.Value, hcl.Diagnostics)

func (f EvalFunc) Evaluate(scope Scope, inst Instance) (cty.Value, hcl.Diagnostics) {
	return f(scope, inst)
}

// Terraformer writes a node in Terraform's language (see Node.Terraform);
// an interface for the same reason as Evaluator.
type Terraformer interface {
	TerraformJSON() (any, hcl.Diagnostics)
}

// TerraformFunc adapts a function to Terraformer.
type TerraformFunc func() (any, hcl.Diagnostics)

func (f TerraformFunc) TerraformJSON() (any, hcl.Diagnostics) { return f() }

// Attrs finds an attribute, by its schema path, in the configuration.
// An interface rather than functions so that a body can answer itself,
// without a closure made for each of a hundred thousand resources.
type Attrs interface {
	// AttrRange is where the configuration sets the attribute at path,
	// false where it cannot tell.
	AttrRange(path cty.Path) (hcl.Range, bool)
	// AttrName is how the configuration names the attribute at path,
	// false where that is as the schema does; a Go program names its
	// args fields (.Dir for dir, .Rule[0].Port).
	AttrName(path cty.Path) (string, bool)
}
