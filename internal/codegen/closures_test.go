package codegen

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// closureSchema is a provider with the types a closure API needs.
func closureSchema(withRoute bool) *provider.Schema {
	url := &provider.Block{Attributes: map[string]*provider.Attribute{"url": {Type: cty.String, Computed: true}}}
	resources := map[string]*provider.ResourceSchema{
		"x_router":   {Block: url, Captured: []string{"url"}, Closures: provider.ClosureRoutes},
		"x_function": {Block: url, Captured: []string{"url"}, Closures: provider.ClosureHandler},
		"x_store": {Block: url, Captured: []string{"url"}, Client: &provider.ClientAPI{
			Import: "example.com/store/client", Package: "client", Open: "Dial", Type: "*client.Conn", Property: "url",
		}},
		"x_tester": {Closures: provider.ClosureTests, Block: &provider.Block{BlockTypes: map[string]*provider.NestedBlock{
			"test": {Nesting: provider.NestingMap, Block: provider.Block{Attributes: map[string]*provider.Attribute{"command": {Type: cty.List(cty.String), Required: true}}}},
		}}},
	}
	if withRoute {
		resources["x_route"] = &provider.ResourceSchema{Block: &provider.Block{Attributes: map[string]*provider.Attribute{"path": {Type: cty.String, Required: true}}}}
	}
	return &provider.Schema{Provider: &provider.Block{}, Resources: provider.NewTypes(resources)}
}

func TestClosureAPIs(t *testing.T) {
	files := generate(t, closureSchema(true), Options{Provider: "x"})
	for file, wants := range map[string][]string{
		"resource_router.go": {
			"import (\n\t\"net/http\"\n\n\t\"github.com/tetherhq/tether\"\n)",
			"func (r *Router) Get(path string, handler http.HandlerFunc, opts ...tether.ClosureOption) *Function {",
			"tether.DeclareRoute(&r.Resource, &f.Resource, typeFunction, typeRoute, \"GET\", path, handler, opts...)",
			"func (r *Router) Post(", "func (r *Router) Put(", "func (r *Router) Delete(", "func (r *Router) Patch(",
			"func (r *Router) Handle(method, path string, handler http.HandlerFunc, opts ...tether.ClosureOption) *Function {",
			"func (r *Router) URL() tether.Output[string]",
		},
		"resource_function.go": {
			"func NewFunctionHandler(scope tether.Scope, id string, handler http.HandlerFunc, opts ...tether.ClosureOption) *Function {",
			"tether.DeclareHandler(scope, &r.Resource, typeFunction, id, handler, opts...)",
		},
		"resource_store.go": {
			"\t\"example.com/store/client\"\n",
			"func (r *Store) Client() (*client.Conn, error) {",
			"v, err := tether.Attr[string](r, \"url\").Get()",
			"return client.Dial(v)",
		},
		"resource_tester.go": {
			"func (r *Tester) Test(name string, fn func(*tether.T), opts ...tether.ClosureOption) {",
			// The test block's getter gives way to the closure API.
			"func (r *Tester) Test2() tether.Output[map[string]TesterTest]",
		},
	} {
		for _, want := range wants {
			if !strings.Contains(files[file], want) {
				t.Errorf("%s lacks %q:\n%s", file, want, files[file])
			}
		}
	}
	// Without a route type a router has no routes to give.
	files = generate(t, closureSchema(false), Options{Provider: "x"})
	if strings.Contains(files["resource_router.go"], "func (r *Router) Get(") || strings.Contains(files["resource_router.go"], "net/http") {
		t.Errorf("a router API without a route type:\n%s", files["resource_router.go"])
	}
}
