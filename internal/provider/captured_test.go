package provider

import "testing"

func TestCapturedEnvName(t *testing.T) {
	for _, tc := range []struct{ typ, id, prop, want string }{
		{"tether_router", "myRouter", "url", "TETHER_ROUTER_MYROUTER_URL"},
		{"tether_kv", "store", "endpoint", "TETHER_KV_STORE_ENDPOINT"},
		// The seed's own example: a scoped type name.
		{"@plutolang/pluto.Router", "myRouter", "url", "_PLUTOLANG_PLUTO_ROUTER_MYROUTER_URL"},
		// Instance keys and module paths carry brackets, quotes and dots.
		{"tether_function", `echo["a-b"]`, "url", "TETHER_FUNCTION_ECHO__A_B___URL"},
		{"tether_function", "module.api.handler", "url", "TETHER_FUNCTION_MODULE_API_HANDLER_URL"},
		// Digits and underscores pass through; letters are upper-cased.
		{"t", "x_1", "p2", "T_X_1_P2"},
		// A non-ASCII letter is one character, hence one underscore; its
		// upper-case form is no ASCII letter either.
		{"tether_kv", "café", "endpoint", "TETHER_KV_CAF__ENDPOINT"},
		{"", "", "", "__"},
	} {
		if got := CapturedEnvName(tc.typ, tc.id, tc.prop); got != tc.want {
			t.Errorf("CapturedEnvName(%q, %q, %q) = %q, want %q", tc.typ, tc.id, tc.prop, got, tc.want)
		}
	}
}

// Two different resources may map to the same name; the rule does not
// hide that, and callers that set variables must check for it.
func TestCapturedEnvNameCollides(t *testing.T) {
	a := CapturedEnvName("tether_router", "a-b", "url")
	b := CapturedEnvName("tether_router", "a_b", "url")
	if a != b {
		t.Fatalf("expected a collision, got %q and %q", a, b)
	}
}
