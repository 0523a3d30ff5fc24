package aws

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// resource is an AWS resource the lowering adds in place of a node.
type resource struct {
	typ  string
	from *config.Node // the node it replaces, for positions and errors
	refs []string     // addresses whose values attrs reads
	deps []string     // addresses it waits for without reading them
	// attrs computes its arguments; Terraform writes them as tf.
	attrs func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics)
	tf    func() (map[string]any, hcl.Diagnostics)
}

func (l *lowering) addr(r resource) string { return join(r.from.Module, r.typ+"."+r.from.Name) }

// add appends the node of r.
func (l *lowering) add(r resource) string {
	addr := l.addr(r)
	rs, ok, err := l.in.Schema.Resources.Get(r.typ)
	if err != nil {
		l.errorf(r.from, "Invalid provider schema", "the provider hashicorp/aws declares resource type %s, which the aws platform deploys it as, but %s.", r.typ, err)
		return addr
	}
	if !ok || rs.Block == nil {
		l.errorf(r.from, "Not available on AWS", "the provider hashicorp/aws has no resource type %s, which the aws platform deploys it as.", r.typ)
		return addr
	}
	at := r.from.DeclRange
	n := &config.Node{
		Kind: config.Resource, Addr: addr, Module: r.from.Module, Type: r.typ, Name: r.from.Name,
		Provider: providerAddr, Source: Source.String(), DeclRange: at,
		Refs: refsAt(r.refs, at), DependsOn: refsAt(r.deps, at),
	}
	// Every object that takes tags says which platform made it: state
	// records the platform through them (see Deployed).
	tagged := rs.Block.Attributes["tags"] != nil
	n.Eval = config.EvalFunc(func(sc config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
		attrs, diags := r.attrs(sc)
		if diags.HasErrors() {
			return cty.UnknownVal(rs.Block.ImpliedType()), diags
		}
		if tagged {
			attrs["tags"] = cty.MapVal(map[string]cty.Value{PlatformTag: cty.StringVal(Name)})
		}
		v, err := conform(attrs, rs.Block, "")
		if err != nil {
			return cty.UnknownVal(rs.Block.ImpliedType()), append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid AWS resource",
				Detail:   fmt.Sprintf("%s, which deploys %s on AWS: %v.", addr, r.from.Addr, err),
				Subject:  at.Ptr(),
			})
		}
		return v, diags
	})
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		body, diags := r.tf()
		if tagged && body != nil {
			body["tags"] = map[string]any{PlatformTag: Name}
		}
		if len(r.deps) > 0 && body != nil {
			var deps []any
			for _, d := range r.deps {
				deps = append(deps, d)
			}
			body["depends_on"] = deps
		}
		return body, diags
	})
	l.out = append(l.out, n)
	return addr
}

func refsAt(addrs []string, at hcl.Range) []config.Ref {
	var out []config.Ref
	for _, a := range addrs {
		out = append(out, config.Ref{Addr: a, Range: at})
	}
	return out
}

// conform makes attrs an object of the block's type: the attributes set
// converted, the others null, nested blocks given as lists of objects.
func conform(attrs map[string]cty.Value, b *provider.Block, path string) (cty.Value, error) {
	for name := range attrs {
		if b.Attributes[name] == nil && b.BlockTypes[name] == nil {
			return cty.NilVal, fmt.Errorf("the provider has no argument %s", path+name)
		}
	}
	vals := map[string]cty.Value{}
	for name, a := range b.Attributes {
		v, ok := attrs[name]
		if !ok {
			vals[name] = cty.NullVal(a.Type)
			continue
		}
		cv, err := convert.Convert(v, a.Type)
		if err != nil {
			return cty.NilVal, fmt.Errorf("%s: %v", path+name, err)
		}
		vals[name] = cv
	}
	for name, nb := range b.BlockTypes {
		ety := nb.Block.ImpliedType()
		var elems []cty.Value
		if v, ok := attrs[name]; ok {
			for i, e := range v.AsValueSlice() {
				cv, err := conform(e.AsValueMap(), &nb.Block, fmt.Sprintf("%s%s[%d].", path, name, i))
				if err != nil {
					return cty.NilVal, err
				}
				elems = append(elems, cv)
			}
		}
		switch {
		case nb.Nesting == provider.NestingSingle || nb.Nesting == provider.NestingGroup:
			if len(elems) == 0 {
				vals[name] = cty.NullVal(ety)
			} else {
				vals[name] = elems[0]
			}
		case nb.Nesting == provider.NestingSet && len(elems) == 0:
			vals[name] = cty.SetValEmpty(ety)
		case nb.Nesting == provider.NestingSet:
			vals[name] = cty.SetVal(elems)
		case nb.Nesting == provider.NestingMap:
			return cty.NilVal, fmt.Errorf("%s: the aws platform does not write blocks of maps", path+name)
		case len(elems) == 0:
			vals[name] = cty.ListValEmpty(ety)
		default:
			vals[name] = cty.ListVal(elems)
		}
	}
	return cty.ObjectVal(vals), nil
}

// block is a nested block's value for conform: a list of one object.
func block(attrs map[string]cty.Value) cty.Value {
	return cty.TupleVal([]cty.Value{cty.ObjectVal(attrs)})
}

var unnamed = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// name is the AWS name of the object a node deploys: the prefix, the
// components it is in and its own name, unique in the account and region
// for one prefix.
func (l *lowering) name(n *config.Node) string {
	parts := []string{l.in.Settings.Prefix}
	for _, seg := range strings.Split(n.Module, ".") {
		if seg != "" && seg != "module" {
			parts = append(parts, seg)
		}
	}
	parts = append(parts, n.Name)
	return unnamed.ReplaceAllString(strings.Join(parts, "-"), "-")
}

// checkName reports a name longer than AWS takes for the kind of object.
func (l *lowering) checkName(n *config.Node, what, name string, max int) {
	if len(name) > max {
		l.errorf(n, "Name too long for AWS", "its %s would be named %q, %d characters, and AWS takes at most %d. Shorten the resource's id or the platform's prefix.", what, name, len(name), max)
	}
}

// ref is the template that reads an attribute of a node.
func ref(addr, attr string) string { return "${" + addr + "." + attr + "}" }

// refOfType finds the node among n's references of type t.
func (l *lowering) refOfType(n *config.Node, t string) *config.Node {
	for _, r := range n.Refs {
		if m := l.byAddr[r.Addr]; isType(m, t) {
			return m
		}
	}
	return nil
}

// original evaluates the node being replaced, through the views, and
// returns its object known and unmarked, or ok false while it is not
// known yet.
func (l *lowering) original(n *config.Node, sc config.Scope, inst config.Instance, hidden map[string]bool) (cty.Value, bool, hcl.Diagnostics) {
	v, diags := n.Eval.Evaluate(l.scope(sc, hidden), inst)
	if diags.HasErrors() {
		return cty.NilVal, false, diags
	}
	uv, _ := v.Unmark()
	if !uv.IsKnown() || uv.IsNull() {
		return cty.NilVal, false, diags
	}
	return uv, true, diags
}

// noPort evaluates a router or store and reports a port set on it: on
// AWS it has no meaning, and ignoring it would be silently wrong.
func (l *lowering) noPort(n *config.Node, sc config.Scope) hcl.Diagnostics {
	v, ok, diags := l.original(n, sc, config.NoInstance, nil)
	if ok && v.Type().IsObjectType() && v.Type().HasAttribute("port") {
		if p, _ := v.GetAttr("port").Unmark(); !p.IsNull() {
			return append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Not available on AWS",
				Detail:   n.Addr + " sets a port, which only the local platform has: on AWS the address is the service's own. Leave port unset.",
				Subject:  n.DeclRange.Ptr(),
			})
		}
	}
	return diags
}

// function deploys a handler closure's function as a Lambda function
// running the program's bundle, with its role, log group and, when it
// uses stores, a policy on their tables.
func (l *lowering) function(n *config.Node) {
	program := l.refOfType(n, "tether_program")
	if program == nil {
		l.errorf(n, "Not available on AWS", "a tether_function that runs a command on this machine cannot be deployed on the aws platform, which runs a Go program's handler closures in Lambda. Deploy it with --platform local, or make it a handler of the program (router.Get, builtin.NewFunctionHandler).")
		return
	}
	if !l.bundled {
		l.bundled = true
		if l.in.Bundle == nil {
			l.bundleErr = fmt.Errorf("no way to build the program was given")
		} else {
			l.bundle, l.bundleErr = l.in.Bundle()
		}
	}
	if l.bundleErr != nil {
		l.errorf(n, "Cannot build the program for Lambda", "%v", l.bundleErr)
		return
	}
	name := l.name(n)
	l.checkName(n, "Lambda function and IAM role", name, 64)
	role := l.add(resource{typ: "aws_iam_role", from: n,
		attrs: func(config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"name": cty.StringVal(name), "assume_role_policy": cty.StringVal(assumeRolePolicy)}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"name": name, "assume_role_policy": assumeRolePolicy}, nil
		}})
	attach := l.add(resource{typ: "aws_iam_role_policy_attachment", from: n, refs: []string{role},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"role": get(sc.Value(role), "name"), "policy_arn": cty.StringVal(basicExecutionPolicy)}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"role": ref(role, "name"), "policy_arn": basicExecutionPolicy}, nil
		}})
	logGroup := "/aws/lambda/" + name
	logs := l.add(resource{typ: "aws_cloudwatch_log_group", from: n,
		attrs: func(config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"name": cty.StringVal(logGroup)}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) { return map[string]any{"name": logGroup}, nil }})
	deps := []string{logs, attach}
	var tables []string
	for _, r := range n.Refs {
		if m := l.byAddr[r.Addr]; isType(m, "tether_kv") {
			tables = append(tables, l.views[m.Addr].to)
		}
	}
	if len(tables) > 0 {
		deps = append(deps, l.add(l.tablePolicy(n, role, tables)))
	}
	hidden := map[string]bool{program.Addr: true}
	var refs []string
	for _, r := range l.refs(n.Refs) {
		if r.Addr != program.Addr {
			refs = append(refs, r.Addr)
		}
	}
	bundle := l.bundle
	lambda := l.add(resource{typ: "aws_lambda_function", from: n, refs: append([]string{role}, refs...), deps: deps,
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			attrs := map[string]cty.Value{
				"function_name":    cty.StringVal(name),
				"role":             get(sc.Value(role), "arn"),
				"runtime":          cty.StringVal(Runtime),
				"handler":          cty.StringVal("bootstrap"),
				"architectures":    cty.ListVal([]cty.Value{cty.StringVal("x86_64")}),
				"filename":         cty.StringVal(bundle.Path),
				"source_code_hash": cty.StringVal(bundle.Hash),
			}
			v, ok, diags := l.original(n, sc, config.NoInstance, hidden)
			if !ok {
				attrs["environment"] = block(map[string]cty.Value{"variables": cty.UnknownVal(cty.Map(cty.String))})
				return attrs, diags
			}
			env := v.GetAttr("env")
			if d := closureEnv(n, env); d != nil {
				return nil, append(diags, d)
			}
			attrs["environment"] = block(map[string]cty.Value{"variables": env})
			return attrs, diags
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			b, diags := body(n)
			if diags.HasErrors() {
				return nil, diags
			}
			env, d := l.rewrite(n, b["env"])
			return map[string]any{
				"function_name":    name,
				"role":             ref(role, "arn"),
				"runtime":          Runtime,
				"handler":          "bootstrap",
				"architectures":    []any{"x86_64"},
				"filename":         l.in.BundleName,
				"source_code_hash": bundle.Hash,
				"environment":      map[string]any{"variables": env},
			}, append(diags, d...)
		}})
	if !l.routed(n) {
		l.functionURL(n, lambda)
	}
}

// functionURL gives a function no route leads to an address of its own,
// as the local platform serves it on loopback: a Lambda function URL,
// open to anyone as the local one is to this machine, and the permission
// AWS asks for to invoke a function through it without signing.
func (l *lowering) functionURL(n *config.Node, lambda string) {
	l.add(resource{typ: "aws_lambda_function_url", from: n, refs: []string{lambda},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"function_name": get(sc.Value(lambda), "function_name"), "authorization_type": cty.StringVal("NONE")}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"function_name": ref(lambda, "function_name"), "authorization_type": "NONE"}, nil
		}})
	l.add(resource{typ: "aws_lambda_permission", from: n, refs: []string{lambda},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{
				"statement_id":           cty.StringVal("tether-function-url"),
				"action":                 cty.StringVal("lambda:InvokeFunctionUrl"),
				"function_name":          get(sc.Value(lambda), "function_name"),
				"principal":              cty.StringVal("*"),
				"function_url_auth_type": cty.StringVal("NONE"),
			}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"statement_id": "tether-function-url", "action": "lambda:InvokeFunctionUrl",
				"function_name": ref(lambda, "function_name"), "principal": "*", "function_url_auth_type": "NONE"}, nil
		}})
}

// body is the Terraform form of the node a resource replaces.
func body(n *config.Node) (map[string]any, hcl.Diagnostics) {
	if n.Terraform == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot write the node for AWS", Detail: n.Addr + " has no Terraform form.", Subject: n.DeclRange.Ptr()}}
	}
	b, diags := n.Terraform.TerraformJSON()
	m, _ := b.(map[string]any)
	return m, diags
}

// closureEnv checks that a function's environment selects a closure:
// only the program's handlers run in Lambda.
func closureEnv(n *config.Node, env cty.Value) *hcl.Diagnostic {
	u, _ := env.Unmark()
	if !u.IsKnown() {
		return nil
	}
	if !u.IsNull() && u.Type().IsMapType() {
		if h := u.HasIndex(cty.StringVal("TETHER_CLOSURE")); !h.IsKnown() || h.True() {
			return nil
		}
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Not available on AWS",
		Detail:   n.Addr + " runs the program's copy but selects no closure (TETHER_CLOSURE): the aws platform runs only a Go program's handler closures in Lambda.",
		Subject:  n.DeclRange.Ptr(),
	}
}

// tablePolicy lets a function's role read and write the tables of the
// stores it uses.
func (l *lowering) tablePolicy(n *config.Node, role string, tables []string) resource {
	policy := func(arns []string) string {
		q := make([]string, len(arns))
		for i, a := range arns {
			q[i] = fmt.Sprintf("%q", a)
		}
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:DeleteItem"],"Resource":[` + strings.Join(q, ",") + `]}]}`
	}
	return resource{typ: "aws_iam_role_policy", from: n, refs: append([]string{role}, tables...),
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			attrs := map[string]cty.Value{"name": cty.StringVal("tables"), "role": get(sc.Value(role), "name")}
			var arns []string
			for _, t := range tables {
				a, _ := get(sc.Value(t), "arn").Unmark()
				if !a.IsKnown() || a.IsNull() {
					attrs["policy"] = cty.UnknownVal(cty.String)
					return attrs, nil
				}
				arns = append(arns, a.AsString())
			}
			attrs["policy"] = cty.StringVal(policy(arns))
			return attrs, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			var arns []string
			for _, t := range tables {
				arns = append(arns, ref(t, "arn"))
			}
			return map[string]any{"name": "tables", "role": ref(role, "name"), "policy": policy(arns)}, nil
		}}
}

// router deploys a router as an API Gateway HTTP API and its $default
// stage, deployed on every change: the API's endpoint is the router's
// url.
func (l *lowering) router(n *config.Node) {
	name := l.name(n)
	api := l.add(resource{typ: "aws_apigatewayv2_api", from: n, refs: l.addrs(l.refs(n.Refs)),
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"name": cty.StringVal(name), "protocol_type": cty.StringVal("HTTP")}, l.noPort(n, sc)
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"name": name, "protocol_type": "HTTP"}, nil
		}})
	l.add(resource{typ: "aws_apigatewayv2_stage", from: n, refs: []string{api},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{"api_id": get(sc.Value(api), "id"), "name": cty.StringVal("$default"), "auto_deploy": cty.True}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"api_id": ref(api, "id"), "name": "$default", "auto_deploy": true}, nil
		}})
}

func (l *lowering) addrs(refs []config.Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Addr)
	}
	return out
}

// route deploys a route as an API Gateway route with a Lambda
// integration (payload format 2.0) and the permission for the API to
// invoke the function.
func (l *lowering) route(n *config.Node) {
	router, fn := l.refOfType(n, "tether_router"), l.refOfType(n, "tether_function")
	if router == nil || fn == nil {
		l.errorf(n, "Not available on AWS", "on the aws platform a route leads from a router (tether_router) to a handler's function (tether_function), which becomes a Lambda integration of an API Gateway HTTP API; this route does not refer to both.")
		return
	}
	api, lambda := l.views[router.Addr].to, l.views[fn.Addr].to
	integration := l.add(resource{typ: "aws_apigatewayv2_integration", from: n, refs: []string{api, lambda},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{
				"api_id":                 get(sc.Value(api), "id"),
				"integration_type":       cty.StringVal("AWS_PROXY"),
				"integration_method":     cty.StringVal("POST"),
				"integration_uri":        get(sc.Value(lambda), "invoke_arn"),
				"payload_format_version": cty.StringVal("2.0"),
			}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"api_id": ref(api, "id"), "integration_type": "AWS_PROXY", "integration_method": "POST",
				"integration_uri": ref(lambda, "invoke_arn"), "payload_format_version": "2.0"}, nil
		}})
	l.add(resource{typ: "aws_apigatewayv2_route", from: n, refs: append([]string{api, integration}, l.addrs(l.refs(n.Refs))...),
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			attrs := map[string]cty.Value{"api_id": get(sc.Value(api), "id"), "target": cty.UnknownVal(cty.String), "route_key": cty.UnknownVal(cty.String)}
			if id, _ := get(sc.Value(integration), "id").Unmark(); id.IsKnown() && !id.IsNull() {
				attrs["target"] = cty.StringVal("integrations/" + id.AsString())
			}
			v, ok, diags := l.original(n, sc, config.NoInstance, nil)
			if !ok {
				return attrs, diags
			}
			method, _ := v.GetAttr("method").Unmark()
			path, _ := v.GetAttr("path").Unmark()
			if !method.IsKnown() || !path.IsKnown() {
				return attrs, diags
			}
			if method.IsNull() || path.IsNull() {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid route", Detail: n.Addr + " has no method or path.", Subject: n.DeclRange.Ptr()})
			}
			key, err := RouteKey(method.AsString(), path.AsString())
			if err != nil {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not available on AWS", Detail: n.Addr + ": " + err.Error(), Subject: n.DeclRange.Ptr()})
			}
			attrs["route_key"] = cty.StringVal(key)
			return attrs, diags
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			b, diags := body(n)
			if diags.HasErrors() {
				return nil, diags
			}
			method, _ := b["method"].(string)
			path, _ := b["path"].(string)
			if strings.Contains(method+path, "${") || method == "" || path == "" {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write the route for AWS",
					Detail: n.Addr + ": its method and path must be plain strings for synth to write the API Gateway route key.", Subject: n.DeclRange.Ptr()})
			}
			key, err := RouteKey(method, path)
			if err != nil {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not available on AWS", Detail: n.Addr + ": " + err.Error(), Subject: n.DeclRange.Ptr()})
			}
			return map[string]any{"api_id": ref(api, "id"), "route_key": key, "target": "integrations/" + ref(integration, "id")}, diags
		}})
	statement := "tether-" + unnamed.ReplaceAllString(strings.ReplaceAll(n.Addr, ".", "-"), "-")
	l.add(resource{typ: "aws_lambda_permission", from: n, refs: []string{api, lambda},
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			source := cty.UnknownVal(cty.String)
			if arn, _ := get(sc.Value(api), "execution_arn").Unmark(); arn.IsKnown() && !arn.IsNull() {
				source = cty.StringVal(arn.AsString() + "/*/*")
			}
			return map[string]cty.Value{
				"statement_id":  cty.StringVal(statement),
				"action":        cty.StringVal("lambda:InvokeFunction"),
				"function_name": get(sc.Value(lambda), "function_name"),
				"principal":     cty.StringVal("apigateway.amazonaws.com"),
				"source_arn":    source,
			}, nil
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"statement_id": statement, "action": "lambda:InvokeFunction", "function_name": ref(lambda, "function_name"),
				"principal": "apigateway.amazonaws.com", "source_arn": ref(api, "execution_arn") + "/*/*"}, nil
		}})
}

// RouteKey is the API Gateway route key of a tether_route's method and
// path: "GET /echo"; ANY stays ANY; a subtree ("/static/") becomes a
// greedy parameter ("/static/{proxy+}"), "{name...}" becomes "{name+}",
// and "/", every path, the $default route.
func RouteKey(method, path string) (string, error) {
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("the path %q does not start with /", path)
	}
	if path == "/" {
		if method != "ANY" {
			return "", fmt.Errorf("the path / with method %s matches every path, which API Gateway routes only for ANY method ($default)", method)
		}
		return "$default", nil
	}
	if strings.HasSuffix(path, "/") {
		path += "{proxy+}"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "...}") {
			if i != len(segs)-1 {
				return "", fmt.Errorf("the path %q has a {name...} segment before its end", path)
			}
			segs[i] = strings.TrimSuffix(s, "...}") + "+}"
		}
		if s == "{$}" {
			return "", fmt.Errorf("the path %q ends in {$}, which API Gateway routes do not have", path)
		}
	}
	return method + " " + strings.Join(segs, "/"), nil
}

// table deploys a store as a DynamoDB table keyed by a string "key",
// billed per request; runtime/kv keeps each value in the item's "value".
func (l *lowering) table(n *config.Node) {
	name := l.name(n)
	l.checkName(n, "DynamoDB table", name, 255)
	l.add(resource{typ: "aws_dynamodb_table", from: n, refs: l.addrs(l.refs(n.Refs)),
		attrs: func(sc config.Scope) (map[string]cty.Value, hcl.Diagnostics) {
			return map[string]cty.Value{
				"name":         cty.StringVal(name),
				"billing_mode": cty.StringVal("PAY_PER_REQUEST"),
				"hash_key":     cty.StringVal("key"),
				"attribute":    block(map[string]cty.Value{"name": cty.StringVal("key"), "type": cty.StringVal("S")}),
			}, l.noPort(n, sc)
		},
		tf: func() (map[string]any, hcl.Diagnostics) {
			return map[string]any{"name": name, "billing_mode": "PAY_PER_REQUEST", "hash_key": "key",
				"attribute": []any{map[string]any{"name": "key", "type": "S"}}}, nil
		}})
}

// providerNode configures hashicorp/aws from the settings.
func (l *lowering) providerNode() *config.Node {
	s := l.in.Settings
	attrs := map[string]cty.Value{"region": cty.StringVal(s.Region)}
	tf := map[string]any{"region": s.Region}
	if s.Profile != "" {
		attrs["profile"] = cty.StringVal(s.Profile)
		tf["profile"] = s.Profile
	}
	if s.Offline {
		attrs["skip_credentials_validation"] = cty.True
		attrs["skip_requesting_account_id"] = cty.True
		attrs["skip_metadata_api_check"] = cty.StringVal("true")
		tf["skip_credentials_validation"] = true
		tf["skip_requesting_account_id"] = true
		tf["skip_metadata_api_check"] = "true"
	}
	if len(s.Tags) > 0 {
		tags := map[string]cty.Value{}
		tfTags := map[string]any{}
		for k, v := range s.Tags {
			tags[k] = cty.StringVal(v)
			tfTags[k] = v
		}
		attrs["default_tags"] = block(map[string]cty.Value{"tags": cty.MapVal(tags)})
		tf["default_tags"] = map[string]any{"tags": tfTags}
	}
	block := l.in.Schema.Provider
	n := &config.Node{Kind: config.Provider, Addr: providerAddr, Name: "aws", Provider: providerAddr, Source: Source.String()}
	n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
		v, err := conform(attrs, block, "")
		if err != nil {
			return cty.UnknownVal(block.ImpliedType()), hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid AWS provider settings", Detail: err.Error() + "."}}
		}
		return v, nil
	})
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) { return tf, nil })
	return n
}
