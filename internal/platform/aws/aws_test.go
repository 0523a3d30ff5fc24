package aws

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
)

// awsProvider is the real provider the platform deploys through, where
// this machine has it in its filesystem mirror.
const awsProvider = "/opt/tf-plugins/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64/terraform-provider-aws_v5.100.0_x5"

var awsSchema struct {
	once   sync.Once
	schema *provider.Schema
	err    error
}

// realSchema is the schema of hashicorp/aws 5.100.0, read from the
// provider itself once for the package's tests.
func realSchema(t *testing.T) *provider.Schema {
	t.Helper()
	if _, err := os.Stat(awsProvider); err != nil {
		t.Skipf("the lowering is checked against the real hashicorp/aws schema, and %s is absent", awsProvider)
	}
	awsSchema.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		c, err := plugin.StartWith(ctx, awsProvider, plugin.StartOptions{})
		if err != nil {
			awsSchema.err = err
			return
		}
		defer c.Close()
		s, diags := c.GetSchema()
		if diags.HasErrors() {
			awsSchema.err = diags
			return
		}
		awsSchema.schema = s
	})
	if awsSchema.err != nil {
		t.Fatal(awsSchema.err)
	}
	return awsSchema.schema
}

// app is a configuration as the SDK makes it for a program with a router,
// a handler behind GET /notes/{key...} that reads the router's url and a
// store's endpoint, a tester whose test reads the url, and an output.
func app() *config.Config {
	at := func(line int) hcl.Range {
		return hcl.Range{Filename: "main.go", Start: hcl.Pos{Line: line, Column: 3}, End: hcl.Pos{Line: line, Column: 20}}
	}
	res := func(typ, name string, line int, refs ...string) *config.Node {
		n := &config.Node{Kind: config.Resource, Addr: typ + "." + name, Type: typ, Name: name, DeclRange: at(line),
			Provider: `provider["registry.terraform.io/tetherhq/tether"]`, Source: "registry.terraform.io/tetherhq/tether"}
		for _, r := range refs {
			n.Refs = append(n.Refs, config.Ref{Addr: r, Range: at(line)})
		}
		return n
	}
	str := func(v cty.Value, name string) cty.Value { return get(v, name) }
	obj := func(m map[string]cty.Value) (cty.Value, hcl.Diagnostics) { return cty.ObjectVal(m), nil }

	program := res("tether_program", "self", 10)
	program.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
		return obj(map[string]cty.Value{"path": cty.UnknownVal(cty.String)})
	})
	router := res("tether_router", "main", 11)
	router.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
		return obj(map[string]cty.Value{"port": cty.NullVal(cty.Number)})
	})
	store := res("tether_kv", "notes", 12)
	store.Eval = router.Eval
	fn := res("tether_function", "main_get_notes", 13, "tether_program.self", "tether_router.main", "tether_kv.notes")
	fn.Eval = config.EvalFunc(func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		return obj(map[string]cty.Value{
			"command": cty.TupleVal([]cty.Value{str(sc.Value("tether_program.self"), "path")}),
			"env": cty.MapVal(map[string]cty.Value{
				"TETHER_CLOSURE":           cty.StringVal("tether_function.main_get_notes"),
				"TETHER_ROUTER_MAIN_URL":   str(sc.Value("tether_router.main"), "url"),
				"TETHER_KV_NOTES_ENDPOINT": str(sc.Value("tether_kv.notes"), "endpoint"),
			}),
		})
	})
	fn.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		return map[string]any{"command": []any{"${tether_program.self.path}"}, "http": true, "env": map[string]any{
			"TETHER_CLOSURE":           "tether_function.main_get_notes",
			"TETHER_ROUTER_MAIN_URL":   "${tether_router.main.url}",
			"TETHER_KV_NOTES_ENDPOINT": "${tether_kv.notes.endpoint}",
		}}, nil
	})
	route := res("tether_route", "main_get_notes_route", 13, "tether_router.main", "tether_function.main_get_notes")
	route.Eval = config.EvalFunc(func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		return obj(map[string]cty.Value{
			"router_id": str(sc.Value("tether_router.main"), "id"), "method": cty.StringVal("GET"),
			"path": cty.StringVal("/notes/{key...}"), "target": str(sc.Value("tether_function.main_get_notes"), "url"),
		})
	})
	route.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		return map[string]any{"router_id": "${tether_router.main.id}", "method": "GET", "path": "/notes/{key...}", "target": "${tether_function.main_get_notes.url}"}, nil
	})
	tester := res("tether_tester", "e2e", 20, "tether_program.self", "tether_router.main")
	tester.Eval = config.EvalFunc(func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		return obj(map[string]cty.Value{"env": cty.MapVal(map[string]cty.Value{"TETHER_ROUTER_MAIN_URL": str(sc.Value("tether_router.main"), "url")})})
	})
	out := &config.Node{Kind: config.Output, Addr: "output.url", Name: "url", DeclRange: at(16), Refs: []config.Ref{{Addr: "tether_router.main"}}}
	out.Eval = config.EvalFunc(func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		return cty.StringVal(str(sc.Value("tether_router.main"), "url").AsString() + "/notes/a"), nil
	})
	out.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		return map[string]any{"value": "${tether_router.main.url}/notes/a"}, nil
	})
	return &config.Config{Nodes: []*config.Node{program, router, store, fn, route, out, tester}, Files: map[string]string{"program": "/bin/prog"}}
}

func lowered(t *testing.T, cfg *config.Config) *config.Config {
	t.Helper()
	got, diags := Lower(cfg, input(t))
	if diags.HasErrors() {
		t.Fatalf("Lower: %s", diags.Error())
	}
	return got
}

func input(t *testing.T) Input {
	return Input{
		Settings: Settings{Region: "eu-west-1", Prefix: "notes", Offline: true, Tags: map[string]string{"team": "a"}},
		Schema:   realSchema(t), BundleName: "bootstrap.zip",
		Bundle: func() (Bundle, error) { return Bundle{Path: "/tmp/b.zip", Hash: "aGFzaA=="}, nil },
	}
}

func addrs(cfg *config.Config) []string {
	var out []string
	for _, n := range cfg.Nodes {
		out = append(out, n.Addr)
	}
	sort.Strings(out)
	return out
}

func TestLowerResources(t *testing.T) {
	got := lowered(t, app())
	want := []string{
		"aws_apigatewayv2_api.main",
		"aws_apigatewayv2_integration.main_get_notes_route",
		"aws_apigatewayv2_route.main_get_notes_route",
		"aws_apigatewayv2_stage.main",
		"aws_cloudwatch_log_group.main_get_notes",
		"aws_dynamodb_table.notes",
		"aws_iam_role.main_get_notes",
		"aws_iam_role_policy.main_get_notes",
		"aws_iam_role_policy_attachment.main_get_notes",
		"aws_lambda_function.main_get_notes",
		"aws_lambda_permission.main_get_notes_route",
		"output.url",
		`provider["registry.terraform.io/hashicorp/aws"]`,
		"tether_program.self", // the tester's tests run it on this machine
		"tether_tester.e2e",
	}
	if a := addrs(got); !slices.Equal(a, want) {
		t.Errorf("nodes:\n%s\nwant:\n%s", strings.Join(a, "\n"), strings.Join(want, "\n"))
	}
	if got.Files["bootstrap.zip"] != "/tmp/b.zip" || got.Files["program"] != "/bin/prog" {
		t.Errorf("files %v", got.Files)
	}
	for _, n := range got.Nodes {
		if strings.HasPrefix(n.Type, "aws_") && (n.Source != Source.String() || n.Provider != providerAddr) {
			t.Errorf("%s is served by %s %s", n.Addr, n.Source, n.Provider)
		}
	}

	// A provider configuration of the program's own is kept; one that
	// sets nothing (implied by bindings) gives way to the settings'.
	for _, c := range []struct {
		name   string
		region cty.Value
		want   string
	}{{"configured", cty.StringVal("us-west-2"), "us-west-2"}, {"unconfigured", cty.NullVal(cty.String), "eu-west-1"}} {
		cfg := app()
		own := &config.Node{Kind: config.Provider, Addr: providerAddr, Name: "aws", Provider: providerAddr, Source: Source.String()}
		own.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
			return cty.ObjectVal(map[string]cty.Value{"region": c.region, "allowed_account_ids": cty.SetValEmpty(cty.String)}), nil
		})
		cfg.Nodes = append(cfg.Nodes, own)
		got := lowered(t, cfg)
		n := 0
		for _, p := range got.Nodes {
			if p.Addr == providerAddr {
				n++
			}
		}
		if region := eval(t, got, providerAddr).GetAttr("region"); n != 1 || region.AsString() != c.want {
			t.Errorf("%s: %d provider configurations, region %#v; want one, %s", c.name, n, region, c.want)
		}
	}

	// Without a tester nothing runs the program's copy: it goes, and so
	// does the file synth would write for it.
	cfg := app()
	cfg.Nodes = cfg.Nodes[:len(cfg.Nodes)-1]
	got = lowered(t, cfg)
	if slices.Contains(addrs(got), "tether_program.self") {
		t.Errorf("tether_program.self kept with no reader")
	}
	if _, ok := got.Files["program"]; ok {
		t.Errorf("files %v", got.Files)
	}
}

// planned are values the AWS resources have once created.
var planned = map[string]cty.Value{
	"aws_apigatewayv2_api.main": cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal("a1b2"), "api_endpoint": cty.StringVal("https://a1b2.execute-api.eu-west-1.amazonaws.com"),
		"execution_arn": cty.StringVal("arn:aws:execute-api:eu-west-1:123:a1b2"),
	}),
	"aws_dynamodb_table.notes": cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal("notes-notes"), "name": cty.StringVal("notes-notes"), "arn": cty.StringVal("arn:aws:dynamodb:eu-west-1:123:table/notes-notes"),
	}),
	"aws_iam_role.main_get_notes": cty.ObjectVal(map[string]cty.Value{
		"name": cty.StringVal("notes-main_get_notes"), "arn": cty.StringVal("arn:aws:iam::123:role/notes-main_get_notes"),
	}),
	"aws_lambda_function.main_get_notes": cty.ObjectVal(map[string]cty.Value{
		"id": cty.StringVal("notes-main_get_notes"), "function_name": cty.StringVal("notes-main_get_notes"),
		"invoke_arn": cty.StringVal("arn:aws:apigateway:eu-west-1:lambda:path/fn"),
	}),
	"aws_apigatewayv2_integration.main_get_notes_route": cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("int1")}),
	"aws_apigatewayv2_route.main_get_notes_route":       cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("r1")}),
	"tether_program.self":                               cty.ObjectVal(map[string]cty.Value{"path": cty.StringVal("/x/program")}),
}

// eval evaluates a node with the planned values of its references alone:
// reading anything else is a dependency the node does not declare.
func eval(t *testing.T, cfg *config.Config, addr string) cty.Value {
	t.Helper()
	for _, n := range cfg.Nodes {
		if n.Addr != addr {
			continue
		}
		sc := config.ScopeFunc(func(a string) cty.Value {
			if !slices.ContainsFunc(n.Refs, func(r config.Ref) bool { return r.Addr == a }) {
				t.Errorf("%s reads %s, which is not among its references", addr, a)
			}
			if v, ok := planned[a]; ok {
				return v
			}
			return cty.DynamicVal
		})
		v, diags := n.Eval.Evaluate(sc, config.NoInstance)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", addr, diags.Error())
		}
		return v
	}
	t.Fatalf("no node %s", addr)
	return cty.NilVal
}

func TestLowerValues(t *testing.T) {
	cfg := lowered(t, app())
	str := func(v cty.Value, path ...string) string {
		for _, p := range path {
			if v.Type().IsListType() || v.Type().IsSetType() {
				v = v.AsValueSlice()[0]
			}
			if v.Type().IsMapType() {
				v = v.Index(cty.StringVal(p))
			} else {
				v = v.GetAttr(p)
			}
		}
		if !v.IsKnown() || v.IsNull() {
			return "?"
		}
		return v.AsString()
	}
	fn := eval(t, cfg, "aws_lambda_function.main_get_notes")
	table := eval(t, cfg, "aws_dynamodb_table.notes")
	route := eval(t, cfg, "aws_apigatewayv2_route.main_get_notes_route")
	perm := eval(t, cfg, "aws_lambda_permission.main_get_notes_route")
	integ := eval(t, cfg, "aws_apigatewayv2_integration.main_get_notes_route")
	policy := eval(t, cfg, "aws_iam_role_policy.main_get_notes")
	stage := eval(t, cfg, "aws_apigatewayv2_stage.main")
	prov := eval(t, cfg, providerAddr)
	for _, c := range []struct{ got, want string }{
		// The environment rule, unchanged: the router's url is the API's
		// endpoint; a store's endpoint names its table and region.
		{str(fn, "environment", "variables", "TETHER_ROUTER_MAIN_URL"), "https://a1b2.execute-api.eu-west-1.amazonaws.com"},
		{str(fn, "environment", "variables", "TETHER_KV_NOTES_ENDPOINT"), "dynamodb://notes-notes?region=eu-west-1"},
		{str(fn, "environment", "variables", "TETHER_CLOSURE"), "tether_function.main_get_notes"},
		{str(fn, "runtime"), "provided.al2023"},
		{str(fn, "handler"), "bootstrap"},
		{str(fn, "filename"), "/tmp/b.zip"},
		{str(fn, "source_code_hash"), "aGFzaA=="},
		{str(fn, "role"), "arn:aws:iam::123:role/notes-main_get_notes"},
		{str(fn, "function_name"), "notes-main_get_notes"},
		{str(table, "hash_key"), "key"},
		{str(table, "billing_mode"), "PAY_PER_REQUEST"},
		{str(table, "attribute", "type"), "S"},
		{str(route, "route_key"), "GET /notes/{key+}"},
		{str(route, "target"), "integrations/int1"},
		{str(integ, "integration_uri"), "arn:aws:apigateway:eu-west-1:lambda:path/fn"},
		{str(integ, "payload_format_version"), "2.0"},
		{str(integ, "integration_type"), "AWS_PROXY"},
		{str(perm, "source_arn"), "arn:aws:execute-api:eu-west-1:123:a1b2/*/*"},
		{str(perm, "principal"), "apigateway.amazonaws.com"},
		{str(stage, "name"), "$default"},
		{str(prov, "region"), "eu-west-1"},
		{str(prov, "skip_metadata_api_check"), "true"},
		{str(prov, "default_tags", "tags", "team"), "a"},
		{eval(t, cfg, "output.url").AsString(), "https://a1b2.execute-api.eu-west-1.amazonaws.com/notes/a"},
		{str(eval(t, cfg, "tether_tester.e2e"), "env", "TETHER_ROUTER_MAIN_URL"), "https://a1b2.execute-api.eu-west-1.amazonaws.com"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	var doc struct {
		Statement []struct {
			Action   []string
			Resource []string
		}
	}
	if err := json.Unmarshal([]byte(str(policy, "policy")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Statement) != 1 || !slices.Equal(doc.Statement[0].Resource, []string{"arn:aws:dynamodb:eu-west-1:123:table/notes-notes"}) ||
		!slices.Equal(doc.Statement[0].Action, []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"}) {
		t.Errorf("policy %s", str(policy, "policy"))
	}
	if fn.GetAttr("architectures").AsValueSlice()[0].AsString() != "x86_64" {
		t.Errorf("architectures %#v", fn.GetAttr("architectures"))
	}

	// While nothing is created, what the AWS resources compute is unknown
	// and so is what reads it: no placeholder reaches a function.
	saved := planned
	planned = map[string]cty.Value{}
	defer func() { planned = saved }()
	fn = eval(t, cfg, "aws_lambda_function.main_get_notes")
	if v := fn.GetAttr("environment").AsValueSlice()[0].GetAttr("variables").Index(cty.StringVal("TETHER_ROUTER_MAIN_URL")); v.IsKnown() {
		t.Errorf("url before the API exists: %#v", v)
	}
}

// TestLowerNoCycle checks that a function reading the router's url waits
// for the API alone: its routes, integrations, permissions and stage all
// come after it.
func TestLowerNoCycle(t *testing.T) {
	cfg := lowered(t, app())
	index := map[string]int{}
	g := graph.New(len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		index[n.Addr] = i
	}
	for i, n := range cfg.Nodes {
		for _, r := range append(append([]config.Ref(nil), n.Refs...), n.DependsOn...) {
			j, ok := index[r.Addr]
			if !ok {
				t.Errorf("%s refers to %s, which is not in the configuration", n.Addr, r.Addr)
				continue
			}
			g.DependsOn(i, j)
		}
	}
	if _, cycle := g.Order(); cycle != nil {
		var names []string
		for _, i := range cycle {
			names = append(names, cfg.Nodes[i].Addr)
		}
		t.Fatalf("cycle: %s", strings.Join(names, " -> "))
	}
	// What the function needs, all the way down.
	needs := map[string]bool{}
	var walk func(i int)
	walk = func(i int) {
		for _, d := range g.Deps(i) {
			a := cfg.Nodes[d].Addr
			if !needs[a] {
				needs[a] = true
				walk(int(d))
			}
		}
	}
	walk(index["aws_lambda_function.main_get_notes"])
	for _, a := range []string{"aws_apigatewayv2_api.main", "aws_dynamodb_table.notes", "aws_iam_role.main_get_notes", "aws_cloudwatch_log_group.main_get_notes", "aws_iam_role_policy.main_get_notes"} {
		if !needs[a] {
			t.Errorf("the function does not wait for %s", a)
		}
	}
	for a := range needs {
		if strings.Contains(a, "route") || strings.Contains(a, "stage") || strings.Contains(a, "tether_") {
			t.Errorf("the function waits for %s", a)
		}
	}
}

func TestLowerTerraform(t *testing.T) {
	cfg := lowered(t, app())
	body := func(addr string) string {
		for _, n := range cfg.Nodes {
			if n.Addr == addr {
				b, diags := n.Terraform.TerraformJSON()
				if diags.HasErrors() {
					t.Fatalf("%s: %s", addr, diags.Error())
				}
				text, _ := json.Marshal(b)
				return string(text)
			}
		}
		t.Fatalf("no node %s", addr)
		return ""
	}
	for addr, want := range map[string][]string{
		"aws_lambda_function.main_get_notes": {
			`"TETHER_ROUTER_MAIN_URL":"${aws_apigatewayv2_api.main.api_endpoint}"`,
			`"TETHER_KV_NOTES_ENDPOINT":"${format(\"dynamodb://%s?region=%s\", aws_dynamodb_table.notes.name, \"eu-west-1\")}"`,
			`"filename":"bootstrap.zip"`, `"source_code_hash":"aGFzaA=="`,
			`"depends_on":["aws_cloudwatch_log_group.main_get_notes","aws_iam_role_policy_attachment.main_get_notes","aws_iam_role_policy.main_get_notes"]`,
		},
		"aws_apigatewayv2_route.main_get_notes_route": {`"route_key":"GET /notes/{key+}"`, `"target":"integrations/${aws_apigatewayv2_integration.main_get_notes_route.id}"`},
		"output.url":                         {`"value":"${aws_apigatewayv2_api.main.api_endpoint}/notes/a"`},
		providerAddr:                         {`"region":"eu-west-1"`, `"skip_credentials_validation":true`, `"default_tags":{"tags":{"team":"a"}}`},
		"aws_iam_role_policy.main_get_notes": {`${aws_dynamodb_table.notes.arn}`},
	} {
		got := body(addr)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s:\n%s\nlacks %s", addr, got, w)
			}
		}
	}
}

func TestLowerRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(cfg *config.Config)
		at     string // the node named
		want   string
	}{
		{"function running a command", func(cfg *config.Config) {
			fn := cfg.Nodes[3]
			fn.Refs = fn.Refs[1:]
		}, "tether_function.main_get_notes", "runs a command on this machine"},
		{"route to something else", func(cfg *config.Config) {
			r := cfg.Nodes[4]
			r.Refs = r.Refs[:1]
		}, "tether_route.main_get_notes_route", "does not refer to both"},
		{"repeated store", func(cfg *config.Config) {
			cfg.Nodes[2].Repeat = &config.Repeat{}
		}, "tether_kv.notes", "repeated"},
		{"synth of an attribute AWS lacks", func(cfg *config.Config) {
			cfg.Nodes[5].Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
				return map[string]any{"value": "${tether_router.main.pid}"}, nil
			})
		}, "output.url", "tether_router.main.pid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := app()
			c.change(cfg)
			got, diags := Lower(cfg, input(t))
			if !diags.HasErrors() {
				for _, n := range got.Nodes {
					if n.Terraform != nil {
						_, d := n.Terraform.TerraformJSON()
						diags = append(diags, d...)
					}
				}
			}
			if !diags.HasErrors() {
				t.Fatalf("no error")
			}
			if msg := diags.Error(); !strings.Contains(msg, c.at) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not name %s and say %q", msg, c.at, c.want)
			}
		})
	}
	// A port means nothing on AWS: said when the router is evaluated.
	cfg := app()
	cfg.Nodes[1].Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
		return cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(8080)}), nil
	})
	got := lowered(t, cfg)
	for _, n := range got.Nodes {
		if n.Addr == "aws_apigatewayv2_api.main" {
			if _, diags := n.Eval.Evaluate(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }), config.NoInstance); !strings.Contains(diags.Error(), "tether_router.main sets a port") {
				t.Errorf("port: %v", diags)
			}
		}
	}
	// No region, nothing to name the store's endpoint with.
	in := input(t)
	in.Settings.Region = ""
	if _, diags := Lower(app(), in); !strings.Contains(diags.Error(), "No AWS region") {
		t.Errorf("no region: %v", diags)
	}
}

func TestRouteKey(t *testing.T) {
	for _, c := range []struct{ method, path, want, err string }{
		{"GET", "/echo", "GET /echo", ""},
		{"ANY", "/notes/{key}", "ANY /notes/{key}", ""},
		{"POST", "/files/{rest...}", "POST /files/{rest+}", ""},
		{"GET", "/static/", "GET /static/{proxy+}", ""},
		{"ANY", "/", "$default", ""},
		{"GET", "/", "", "matches every path"},
		{"GET", "/a/{x...}/b", "", "before its end"},
		{"GET", "/a/{$}", "", "{$}"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			got, err := RouteKey(c.method, c.path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestSettingsFrom(t *testing.T) {
	program := &config.Platform{Name: "aws", Settings: map[string]string{"region": "eu-west-1", "prefix": "shop"}, Tags: map[string]string{"team": "a"}}
	for _, c := range []struct {
		name    string
		p       *config.Platform
		environ []string
		want    Settings
		err     string
	}{
		{"program", program, nil, Settings{Region: "eu-west-1", Prefix: "shop", Tags: map[string]string{"team": "a"}}, ""},
		{"environment wins", program, []string{"TETHER_AWS_REGION=us-east-2", "TETHER_AWS_TAGS=env=dev, team=b", "TETHER_AWS_OFFLINE=true", "AWS_REGION=ap-south-1"},
			Settings{Region: "us-east-2", Prefix: "shop", Tags: map[string]string{"env": "dev", "team": "b"}, Offline: true}, ""},
		{"the SDK's region", nil, []string{"AWS_DEFAULT_REGION=ca-central-1"}, Settings{Region: "ca-central-1", Prefix: "app-1"}, ""},
		{"AWS_REGION first", nil, []string{"AWS_DEFAULT_REGION=ca-central-1", "AWS_REGION=eu-north-1"}, Settings{Region: "eu-north-1", Prefix: "app-1"}, ""},
		{"bad offline", nil, []string{"AWS_REGION=x", "TETHER_AWS_OFFLINE=yes please"}, Settings{}, "TETHER_AWS_OFFLINE"},
		{"bad tags", nil, []string{"AWS_REGION=x", "TETHER_AWS_TAGS=team"}, Settings{}, "KEY=VALUE"},
		{"unknown setting", &config.Platform{Settings: map[string]string{"zone": "a"}}, []string{"AWS_REGION=x"}, Settings{}, `no setting "zone"`},
		{"no region", &config.Platform{Settings: map[string]string{"prefix": "a"}}, []string{"HOME=/root"}, Settings{}, "none is set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SettingsFrom(c.p, c.environ, "/srv/app 1")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(c.want)
			if string(gj) != string(wj) {
				t.Errorf("got %s, want %s", gj, wj)
			}
		})
	}
}

// withWorker is app with a function handler no route leads to
// (builtin.NewFunctionHandler), whose url the notes handler reads.
func withWorker() *config.Config {
	cfg := app()
	var fn *config.Node
	for _, n := range cfg.Nodes {
		if n.Addr == "tether_function.main_get_notes" {
			fn = n
		}
	}
	worker := &config.Node{Kind: config.Resource, Addr: "tether_function.worker", Type: "tether_function", Name: "worker",
		DeclRange: fn.DeclRange, Provider: fn.Provider, Source: fn.Source, Refs: []config.Ref{{Addr: "tether_program.self"}}}
	worker.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
		return cty.ObjectVal(map[string]cty.Value{"env": cty.MapVal(map[string]cty.Value{"TETHER_CLOSURE": cty.StringVal("tether_function.worker")})}), nil
	})
	worker.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		return map[string]any{"command": []any{"${tether_program.self.path}"}, "env": map[string]any{"TETHER_CLOSURE": "tether_function.worker"}}, nil
	})
	eval, tf := fn.Eval, fn.Terraform
	fn.Refs = append(fn.Refs, config.Ref{Addr: worker.Addr})
	fn.Eval = config.EvalFunc(func(sc config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
		v, diags := eval.Evaluate(sc, inst)
		env := v.GetAttr("env").AsValueMap()
		env["TETHER_FUNCTION_WORKER_URL"] = get(sc.Value(worker.Addr), "url")
		return cty.ObjectVal(map[string]cty.Value{"command": v.GetAttr("command"), "env": cty.MapVal(env)}), diags
	})
	fn.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		b, diags := tf.TerraformJSON()
		b.(map[string]any)["env"].(map[string]any)["TETHER_FUNCTION_WORKER_URL"] = "${tether_function.worker.url}"
		return b, diags
	})
	cfg.Nodes = append(cfg.Nodes, worker)
	return cfg
}

// TestLowerFunctionURL checks that a function handler of its own gets a
// Lambda function URL, open as the local one is, and that the functions
// reading its url get that URL (without AWS's closing slash), in the
// plan and in synth's JSON; a router's function gets none.
func TestLowerFunctionURL(t *testing.T) {
	cfg := lowered(t, withWorker())
	a := addrs(cfg)
	for _, want := range []string{"aws_lambda_function.worker", "aws_lambda_function_url.worker", "aws_lambda_permission.worker"} {
		if !slices.Contains(a, want) {
			t.Errorf("no %s among\n%s", want, strings.Join(a, "\n"))
		}
	}
	if slices.Contains(a, "aws_lambda_function_url.main_get_notes") {
		t.Errorf("the router's function has a function URL")
	}
	planned["aws_lambda_function_url.worker"] = cty.ObjectVal(map[string]cty.Value{
		"function_name": cty.StringVal("notes-worker"), "function_url": cty.StringVal("https://w0rk.lambda-url.eu-west-1.on.aws/"),
	})
	planned["aws_lambda_function.worker"] = cty.ObjectVal(map[string]cty.Value{"function_name": cty.StringVal("notes-worker")})
	defer delete(planned, "aws_lambda_function_url.worker")
	defer delete(planned, "aws_lambda_function.worker")
	fn := eval(t, cfg, "aws_lambda_function.main_get_notes")
	if got := fn.GetAttr("environment").AsValueSlice()[0].GetAttr("variables").Index(cty.StringVal("TETHER_FUNCTION_WORKER_URL")); got != cty.StringVal("https://w0rk.lambda-url.eu-west-1.on.aws") {
		t.Errorf("TETHER_FUNCTION_WORKER_URL = %#v", got)
	}
	url := eval(t, cfg, "aws_lambda_function_url.worker")
	perm := eval(t, cfg, "aws_lambda_permission.worker")
	if url.GetAttr("authorization_type").AsString() != "NONE" || url.GetAttr("function_name").AsString() != "notes-worker" ||
		perm.GetAttr("action").AsString() != "lambda:InvokeFunctionUrl" || perm.GetAttr("function_url_auth_type").AsString() != "NONE" {
		t.Errorf("function URL %#v\npermission %#v", url, perm)
	}
	for _, n := range cfg.Nodes {
		if n.Addr != "aws_lambda_function.main_get_notes" {
			continue
		}
		b, diags := n.Terraform.TerraformJSON()
		text, _ := json.Marshal(b)
		if diags.HasErrors() || !strings.Contains(string(text), `"TETHER_FUNCTION_WORKER_URL":"${trimsuffix(aws_lambda_function_url.worker.function_url, \"/\")}"`) {
			t.Errorf("synth writes %s (%v)", text, diags)
		}
	}
}

// TestPlatformTag checks that what the platform deploys says so in its
// tags wherever the resource takes tags, and that Deployed reads it back
// from state's encoding.
func TestPlatformTag(t *testing.T) {
	cfg := lowered(t, app())
	for addr, tagged := range map[string]bool{
		"aws_lambda_function.main_get_notes":            true,
		"aws_dynamodb_table.notes":                      true,
		"aws_apigatewayv2_api.main":                     true,
		"aws_iam_role.main_get_notes":                   true,
		"aws_iam_role_policy_attachment.main_get_notes": false,
		"aws_lambda_permission.main_get_notes_route":    false,
	} {
		v := eval(t, cfg, addr)
		has := v.Type().HasAttribute("tags")
		if has != tagged || (tagged && v.GetAttr("tags").Index(cty.StringVal(PlatformTag)) != cty.StringVal("aws")) {
			t.Errorf("%s: tags %v, want tagged %v", addr, v, tagged)
		}
	}
	for _, c := range []struct {
		typ, value string
		want       bool
	}{
		{"aws_lambda_function", `{"tags":{"tether:platform":"aws"}}`, true},
		{"aws_lambda_function", `{"tags":{"tether:platform":"gcp"}}`, false},
		{"aws_lambda_function", `{"tags":{"team":"a"}}`, false},
		{"aws_lambda_function", `{"tags":null,"description":"tether:platform"}`, false},
		{"tether_value", `{"tags":{"tether:platform":"aws"}}`, false},
	} {
		if got := Deployed(c.typ, []byte(c.value)); got != c.want {
			t.Errorf("Deployed(%s, %s) = %v", c.typ, c.value, got)
		}
	}
}
