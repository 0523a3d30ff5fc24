package addr

import "testing"

// TestParseWholeModule: a moved block's from and to may name a whole
// module instance; parsing one used to fail with "expected a name", so
// `moved { from = module.a  to = module.b }` moved nothing.
func TestParseWholeModule(t *testing.T) {
	for _, s := range []string{`module.net`, `module.net["eu"]`, `module.net[0].module.sub`} {
		a, err := ParseInstance(s)
		if err != nil {
			t.Fatalf("ParseInstance(%s): %v", s, err)
		}
		if a.Resource != "" || len(a.Module) == 0 {
			t.Errorf("ParseInstance(%s) = %+v, want a module instance", s, a)
		}
		if got := a.String(); got != s {
			t.Errorf("round trip of %s gave %s", s, got)
		}
	}
}
