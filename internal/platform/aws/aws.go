package aws

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// Source is the provider the platform deploys through.
var Source = tfaddr.MustParseProviderSource("hashicorp/aws")

// Requirement is what the platform asks of the provider: the 5.x schema
// its resources are written against.
var Requirement = config.ProviderRequirement{Source: Source, Constraints: []string{"~> 5.0"}}

// providerAddr is the default configuration of the provider.
var providerAddr = `provider["` + Source.String() + `"]`

// Settings configure the platform and its provider.
type Settings struct {
	// Region is where everything is deployed; a store's endpoint names it.
	Region string
	// Profile is the shared-credentials profile, when not the default.
	Profile string
	// Tags are put on every resource that takes tags (the provider's
	// default_tags).
	Tags map[string]string
	// Prefix starts the name of every named object (functions, roles, log
	// groups, APIs, tables): names are unique in an account and region.
	Prefix string
	// Offline configures the provider to make no call before it must
	// (skip_credentials_validation, skip_requesting_account_id,
	// skip_metadata_api_check), so that a plan works without credentials
	// or network, with keys that are never checked.
	Offline bool
}

// Bundle is the program built for Lambda: a zip holding it as bootstrap.
type Bundle struct {
	// Path is where the zip is, for the provider to upload.
	Path string
	// Hash is the base64 SHA-256 of the zip, the functions'
	// source_code_hash: a new build updates them.
	Hash string
}

// Input is what Lower needs besides the configuration.
type Input struct {
	Settings Settings
	// Schema is the schema of hashicorp/aws.
	Schema *provider.Schema
	// Bundle builds the program for Lambda; it is called only when a
	// handler closure's function is lowered.
	Bundle func() (Bundle, error)
	// BundleName is the bundle's name beside the Terraform JSON synth
	// writes (the configuration's Files).
	BundleName string
}

// Runtime is the Lambda runtime functions run on: the program is its own
// runtime (bootstrap), built for linux/amd64.
const Runtime = "provided.al2023"

// basicExecutionPolicy lets a function write its logs.
const basicExecutionPolicy = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"

const assumeRolePolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// Lower returns cfg with the local runtime's nodes replaced by AWS
// resources, and the provider configuration that serves them. cfg is not
// changed. Errors name the node that cannot be deployed on AWS and why.
func Lower(cfg *config.Config, in Input) (*config.Config, hcl.Diagnostics) {
	l := &lowering{cfg: cfg, in: in, byAddr: map[string]*config.Node{}, views: map[string]view{}}
	for _, n := range cfg.Nodes {
		l.byAddr[n.Addr] = n
	}
	if in.Settings.Region == "" {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No AWS region",
			Detail:   "The aws platform deploys to one region, which a store's endpoint names too. Set it in the program (tether.AWS{Region: \"eu-west-1\"}) or in the environment (TETHER_AWS_REGION, AWS_REGION or AWS_DEFAULT_REGION).",
		}}
	}
	if in.Schema == nil || in.Schema.Provider == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No schema of hashicorp/aws", Detail: "The aws platform needs the schema of the hashicorp/aws provider."}}
	}
	for _, n := range cfg.Nodes {
		l.plan(n)
	}
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	for _, n := range cfg.Nodes {
		l.lower(n)
	}
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	l.dropUnread()
	out := *cfg
	out.Nodes = l.out
	if !l.hasProvider {
		out.Nodes = append(out.Nodes, l.providerNode())
	}
	out.Required = map[string]config.ProviderRequirement{}
	for k, v := range cfg.Required {
		out.Required[k] = v
	}
	if _, ok := out.Required["aws"]; !ok {
		out.Required["aws"] = Requirement
	}
	if l.bundle.Path != "" {
		out.Files = map[string]string{}
		for k, v := range cfg.Files {
			if k != l.programFile() {
				out.Files[k] = v
			}
		}
		out.Files[in.BundleName] = l.bundle.Path
	}
	return &out, l.diags
}

// view is how a lowered node answers the nodes that read it: its
// original attributes computed from the AWS resources that replace it.
type view struct {
	// to is the AWS resource that stands for the node in dependencies.
	to string
	// value computes the attributes from the scope of the reader, which
	// holds the value of to.
	value func(sc config.Scope) cty.Value
	// expr writes an attribute as a Terraform expression, for synth; an
	// attribute with no counterpart on AWS is missing.
	expr map[string]string
}

type lowering struct {
	cfg    *config.Config
	in     Input
	byAddr map[string]*config.Node
	views  map[string]view
	out    []*config.Node
	diags  hcl.Diagnostics

	bundle      Bundle
	bundleErr   error
	bundled     bool
	hasProvider bool
}

// join makes an address in the node's module.
func join(module, rel string) string {
	if module == "" {
		return rel
	}
	return module + "." + rel
}

func (l *lowering) errorf(n *config.Node, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   n.Addr + ": " + fmt.Sprintf(format, args...),
		Subject:  n.DeclRange.Ptr(),
	})
}

// isType reports whether n is a resource of type t.
func isType(n *config.Node, t string) bool {
	return n != nil && n.Kind == config.Resource && n.Type == t
}

// plan records, for every node to lower, the view its readers get.
func (l *lowering) plan(n *config.Node) {
	if n.Kind != config.Resource {
		return
	}
	at := func(t string) string { return join(n.Module, t+"."+n.Name) }
	switch n.Type {
	case "tether_router":
		api := at("aws_apigatewayv2_api")
		l.views[n.Addr] = view{to: api, value: func(sc config.Scope) cty.Value {
			v := sc.Value(api)
			return cty.ObjectVal(map[string]cty.Value{"id": get(v, "id"), "url": get(v, "api_endpoint")})
		}, expr: map[string]string{"id": api + ".id", "url": api + ".api_endpoint"}}
	case "tether_kv":
		table := at("aws_dynamodb_table")
		region := l.in.Settings.Region
		l.views[n.Addr] = view{to: table, value: func(sc config.Scope) cty.Value {
			v := sc.Value(table)
			return cty.ObjectVal(map[string]cty.Value{"id": get(v, "id"), "endpoint": Endpoint(get(v, "name"), region)})
		}, expr: map[string]string{"id": table + ".id", "endpoint": fmt.Sprintf(`format("dynamodb://%%s?region=%%s", %s.name, %q)`, table, region)}}
	case "tether_function":
		fn := at("aws_lambda_function")
		if l.routed(n) {
			// Reached through its router's API: it has no address of its
			// own, as a local router's function has none but loopback's.
			l.views[n.Addr] = view{to: fn, value: func(sc config.Scope) cty.Value {
				return cty.ObjectVal(map[string]cty.Value{"id": get(sc.Value(fn), "id"), "url": cty.NullVal(cty.String)})
			}, expr: map[string]string{"id": fn + ".id"}}
			break
		}
		// A function handler of its own (builtin.NewFunctionHandler) is
		// reached at its function URL, which AWS ends with a slash that
		// the local url has not.
		fnURL := at("aws_lambda_function_url")
		l.views[n.Addr] = view{to: fnURL, value: func(sc config.Scope) cty.Value {
			v := sc.Value(fnURL)
			return cty.ObjectVal(map[string]cty.Value{"id": get(v, "function_name"), "url": trimSlash(get(v, "function_url"))})
		}, expr: map[string]string{"id": fnURL + ".function_name", "url": fmt.Sprintf(`trimsuffix(%s.function_url, "/")`, fnURL)}}
	case "tether_route":
		route := at("aws_apigatewayv2_route")
		l.views[n.Addr] = view{to: route, value: func(sc config.Scope) cty.Value {
			return cty.ObjectVal(map[string]cty.Value{"id": get(sc.Value(route), "id")})
		}, expr: map[string]string{"id": route + ".id"}}
	}
}

// routed reports whether a route leads to the function n.
func (l *lowering) routed(n *config.Node) bool {
	for _, m := range l.cfg.Nodes {
		if isType(m, "tether_route") {
			for _, r := range m.Refs {
				if r.Addr == n.Addr {
					return true
				}
			}
		}
	}
	return false
}

// trimSlash drops the slash that ends a function URL.
func trimSlash(u cty.Value) cty.Value {
	v, m := u.Unmark()
	if !v.IsKnown() || v.IsNull() || !v.Type().Equals(cty.String) {
		return v.WithMarks(m)
	}
	return cty.StringVal(strings.TrimSuffix(v.AsString(), "/")).WithMarks(m)
}

// Endpoint is a store's endpoint on AWS: dynamodb://TABLE?region=REGION,
// the form runtime/kv.Open takes. It is unknown while the table's name is.
func Endpoint(table cty.Value, region string) cty.Value {
	t, m := table.Unmark()
	switch {
	case !t.IsKnown():
		return cty.UnknownVal(cty.String).WithMarks(m)
	case t.IsNull():
		return cty.NullVal(cty.String).WithMarks(m)
	}
	return cty.StringVal("dynamodb://" + t.AsString() + "?region=" + region).WithMarks(m)
}

// get reads an attribute of an object that may be unknown, null or
// marked.
func get(v cty.Value, name string) cty.Value {
	uv, m := v.Unmark()
	switch {
	case !uv.IsKnown() || uv.IsNull() || !uv.Type().IsObjectType() || !uv.Type().HasAttribute(name):
		return cty.DynamicVal.WithMarks(m)
	}
	return uv.GetAttr(name).WithMarks(m)
}

// lower adds what replaces n, or n itself read through the views.
func (l *lowering) lower(n *config.Node) {
	switch {
	case n.Kind == config.Provider && n.Source == Source.String() && n.Addr == providerAddr && unconfigured(n):
		// The provider used with no configuration of its own (as a Go
		// program's bindings imply it): the platform's settings
		// configure it.
		return
	case n.Kind == config.Provider && n.Source == Source.String() && n.Addr == providerAddr:
		l.hasProvider = true
	case n.Kind == config.Resource && l.views[n.Addr].to != "" && n.Repeat != nil:
		l.errorf(n, "Not available on AWS", "the aws platform does not deploy a repeated (count or for_each) %s yet; declare each one.", n.Type)
		return
	case n.Kind == config.Resource && l.views[n.Addr].to != "":
		map[string]func(*config.Node){
			"tether_function": l.function,
			"tether_router":   l.router,
			"tether_route":    l.route,
			"tether_kv":       l.table,
		}[n.Type](n)
		return
	}
	l.out = append(l.out, l.reading(n))
}

// unconfigured reports whether a provider configuration sets nothing:
// evaluated with no references, every argument is null or empty.
func unconfigured(n *config.Node) bool {
	if len(n.Refs) > 0 || n.Eval == nil {
		return false
	}
	v, diags := n.Eval.Evaluate(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }), config.NoInstance)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	if !v.Type().IsObjectType() {
		return false
	}
	for _, a := range v.AsValueMap() {
		if !a.IsNull() && (!a.CanIterateElements() || a.LengthInt() > 0) {
			return false
		}
	}
	return true
}

// reading returns n evaluated through the views of what it reads, or n
// itself when it reads nothing lowered.
func (l *lowering) reading(n *config.Node) *config.Node {
	reads := false
	for _, r := range append(append([]config.Ref(nil), n.Refs...), n.DependsOn...) {
		if _, ok := l.views[r.Addr]; ok {
			reads = true
		}
	}
	if !reads {
		return n
	}
	c := *n
	c.Refs = l.refs(n.Refs)
	c.DependsOn = l.refs(n.DependsOn)
	if n.Eval != nil {
		c.Eval = config.EvalFunc(func(sc config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
			return n.Eval.Evaluate(l.scope(sc, nil), inst)
		})
	}
	if n.Terraform != nil {
		c.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
			body, diags := n.Terraform.TerraformJSON()
			if diags.HasErrors() {
				return body, diags
			}
			body, d := l.rewrite(n, body)
			return body, append(diags, d...)
		})
	}
	return &c
}

// refs maps references to lowered nodes onto the resources that stand
// for them.
func (l *lowering) refs(in []config.Ref) []config.Ref {
	var out []config.Ref
	seen := map[string]bool{}
	for _, r := range in {
		if v, ok := l.views[r.Addr]; ok {
			r.Addr = v.to
		}
		if !seen[r.Addr] {
			seen[r.Addr] = true
			out = append(out, r)
		}
	}
	return out
}

// scope answers reads of lowered nodes through their views; addresses in
// hidden read as unknown (the program's copy, which a Lambda function
// does not run).
func (l *lowering) scope(sc config.Scope, hidden map[string]bool) config.Scope {
	f := config.ScopeFunc(func(addr string) cty.Value {
		if hidden[addr] {
			return cty.DynamicVal
		}
		if v, ok := l.views[addr]; ok {
			return v.value(sc)
		}
		return sc.Value(addr)
	})
	if rs, ok := sc.(config.RunScope); ok {
		return runScope{ScopeFunc: f, run: rs.Run()}
	}
	return f
}

type runScope struct {
	config.ScopeFunc
	run config.Run
}

func (s runScope) Run() config.Run { return s.run }

// traversal matches the references synth's templates hold: a node's
// whole address and an attribute.
var traversal = regexp.MustCompile(`(?:module\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?\.)*tether_(?:router|kv|function|route)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_]+`)

// rewrite writes the references of a node's Terraform form to lowered
// nodes as the expressions of their views.
func (l *lowering) rewrite(n *config.Node, body any) (any, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			if !strings.Contains(v, "${") {
				return v
			}
			return traversal.ReplaceAllStringFunc(v, func(ref string) string {
				i := strings.LastIndex(ref, ".")
				addr, attr := ref[:i], ref[i+1:]
				view, ok := l.views[addr]
				if !ok {
					return ref
				}
				expr, ok := view.expr[attr]
				if !ok {
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Not available on AWS",
						Detail:   fmt.Sprintf("%s reads %s, which has no counterpart on the aws platform: it has %s there.", n.Addr, ref, strings.Join(slices.Sorted(maps.Keys(view.expr)), " and ")),
						Subject:  n.DeclRange.Ptr(),
					})
					return ref
				}
				return expr
			})
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = walk(e)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	return walk(body), diags
}

// dropUnread leaves out the program's copies (tether_program) that no
// node reads any more: on AWS the functions run the bundle.
func (l *lowering) dropUnread() {
	read := map[string]bool{}
	for _, n := range l.out {
		for _, r := range n.Refs {
			read[r.Addr] = true
		}
		for _, r := range n.DependsOn {
			read[r.Addr] = true
		}
	}
	kept := l.out[:0]
	for _, n := range l.out {
		if isType(n, "tether_program") && !read[n.Addr] {
			continue
		}
		kept = append(kept, n)
	}
	l.out = kept
}

// programFile is the name under which the configuration's Files hold the
// program's copy for synth, when no node runs it any more.
func (l *lowering) programFile() string {
	for _, n := range l.out {
		if isType(n, "tether_program") {
			return ""
		}
	}
	return "program"
}
