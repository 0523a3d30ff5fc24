package sdk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// runtimeStack is a stack as a program rebuilds it to run a closure,
// with Outputs giving run-time values until the test ends.
func runtimeStack(t *testing.T) *Stack {
	t.Helper()
	schema, _ := tetherprovider.New().GetSchema()
	st := newStack(cli.LoadInput{Schema: func(config.ProviderRequirement) (*provider.Schema, error) { return schema, nil }})
	t.Cleanup(func() {
		mode.serving.Store(false)
		mode.stack.Store(nil)
	})
	return st
}

func serving(st *Stack) {
	mode.stack.Store(st)
	mode.serving.Store(true)
}

var routerType = &Type{Provider: "tether", Name: "tether_router", Func: "test.NewRouter"}

func TestCapturedPropertyAtRunTime(t *testing.T) {
	st := runtimeStack(t)
	var router Resource
	Declare(st, &router, routerType, "myRouter", struct{}{})
	site := NewComponent(st, "site")
	var inner Resource
	Declare(site, &inner, routerType, "main", struct{}{})
	url := Attr[string](&router, "url")
	innerURL := Attr[string](&inner, "url")
	pid := Attr[float64](&router, "pid")
	page := Sprintf("%s/page", url)
	serving(st)

	// The seed's message, exactly, when the variable is missing.
	want := "The 'url' of the '<tether_router>myRouter' cannot be found."
	if _, err := url.Get(); err == nil || err.Error() != want {
		t.Errorf("Get: %v, want %q", err, want)
	}
	func() {
		defer func() {
			if r := recover(); fmt.Sprint(r) != want {
				t.Errorf("String panicked with %v, want %q", r, want)
			}
		}()
		_ = url.String()
	}()
	if got := fmt.Sprintf("%s", url); got != "%!s("+want+")" {
		t.Errorf("Sprintf: %q", got)
	}
	if _, err := innerURL.Get(); err == nil || err.Error() != "The 'url' of the '<tether_router>site.main' cannot be found." {
		t.Errorf("component router: %v", err)
	}

	// With the variables the deployment sets: TYPE_ID_PROPERTY, upper case,
	// "_" for anything else.
	t.Setenv("TETHER_ROUTER_MYROUTER_URL", "http://127.0.0.1:4321")
	t.Setenv("TETHER_ROUTER_SITE_MAIN_URL", "http://127.0.0.1:4322")
	if got, err := url.Get(); err != nil || got != "http://127.0.0.1:4321" {
		t.Errorf("Get: %q, %v", got, err)
	}
	if got := url.String() + "/echo"; got != "http://127.0.0.1:4321/echo" {
		t.Errorf("String: %q", got)
	}
	if got := fmt.Sprintf("%v|%10s", url, innerURL); got != "http://127.0.0.1:4321|http://127.0.0.1:4322" {
		t.Errorf("Sprintf: %q", got)
	}
	// Values computed from captured properties are computed at run time.
	if got, err := page.Get(); err != nil || got != "http://127.0.0.1:4321/page" {
		t.Errorf("Sprintf Output: %q, %v", got, err)
	}
	if got := Apply(url, strings.ToUpper).String(); got != "HTTP://127.0.0.1:4321" {
		t.Errorf("Apply: %q", got)
	}
	// Any attribute travels the same way, a number as its text.
	t.Setenv("TETHER_ROUTER_MYROUTER_PID", "4321")
	if got, err := pid.Get(); err != nil || got != 4321 {
		t.Errorf("pid: %v, %v", got, err)
	}
	// A value computed from an attribute the environment lacks names it.
	port := Apply2(url, Attr[float64](&inner, "port"), func(u string, p float64) string { return u })
	if _, err := port.Get(); err == nil || err.Error() != "The 'port' of the '<tether_router>site.main' cannot be found." {
		t.Errorf("port: %v", err)
	}
}

func TestGetWhileDeploying(t *testing.T) {
	st := runtimeStack(t)
	var router Resource
	Declare(st, &router, routerType, "main", struct{}{})
	_, err := Attr[string](&router, "url").Get()
	if err == nil || !strings.Contains(err.Error(), "is not known while the program deploys") {
		t.Errorf("got %v", err)
	}
	if s := Attr[string](&router, "url").String(); !strings.HasPrefix(s, tokenPrefix) {
		t.Errorf("String while deploying is %q, not a token", s)
	}
}

func TestRouteIDs(t *testing.T) {
	for _, tc := range []struct{ router, method, path, want string }{
		{"main", "GET", "/echo", "main_get_echo"},
		{"main", "GET", "/", "main_get_root"},
		{"api", "POST", "/users/{id}/", "api_post_users_id"},
		{"api", "ANY", "/static/a.css", "api_any_static_a_css"},
		{"api", "DELETE", "/a-b", "api_delete_a-b"},
	} {
		if got := routeID(tc.router, tc.method, tc.path); got != tc.want {
			t.Errorf("routeID(%q, %q, %q) = %q, want %q", tc.router, tc.method, tc.path, got, tc.want)
		}
	}
}

// A captured property travels as text: a string as it is, anything else
// as JSON.
func TestEnvEncoding(t *testing.T) {
	for _, v := range []cty.Value{cty.StringVal("http://127.0.0.1:1"), cty.StringVal(""), cty.NumberIntVal(42), cty.True, cty.ListVal([]cty.Value{cty.StringVal("a")})} {
		s, err := encodeEnv(v)
		if err != nil {
			t.Fatalf("encode %#v: %v", v, err)
		}
		got, err := decodeEnv(s, v.Type())
		if err != nil || !got.RawEquals(v) {
			t.Errorf("%#v travels as %q and comes back as %#v, %v", v, s, got, err)
		}
	}
	if _, err := decodeEnv("x", cty.Number); err == nil {
		t.Error("x decoded as a number")
	}
}

// A resource declared from a goroutine once the program's function
// returned is a mistake whether the stack was sealed yet or not: before
// the seal it used to be planned, after it dropped.
func TestDeclareAfterReturnFromGoroutine(t *testing.T) {
	schema, _ := tetherprovider.New().GetSchema()
	for _, sealedFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("sealed first %v", sealedFirst), func(t *testing.T) {
			st := newStack(cli.LoadInput{Schema: func(config.ProviderRequirement) (*provider.Schema, error) { return schema, nil }})
			release, done := make(chan struct{}), make(chan struct{})
			var late Resource
			if diags := st.build(ProgramOf(func(s *Stack) error {
				go func() {
					<-release
					Declare(s, &late, routerType, "late", struct{}{})
					close(done)
				}()
				return nil
			})); len(diags) > 0 {
				t.Fatal(diags)
			}
			var diags hcl.Diagnostics
			var cfg *config.Config
			if sealedFirst {
				cfg, diags = st.seal()
			}
			close(release)
			<-done
			if sealedFirst {
				diags = append(diags, st.takeLate()...)
			} else {
				cfg, diags = st.seal()
			}
			if !strings.Contains(diags.Error(), "Called after the program's function returned") {
				t.Errorf("no error for the late declaration: %v", diags)
			}
			for _, n := range cfg.Nodes {
				if n.Addr == "tether_router.late" {
					t.Errorf("the late declaration is planned")
				}
			}
		})
	}
}
