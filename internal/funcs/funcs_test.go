package funcs

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/refs"
)

func eval(t *testing.T, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", src, diags)
	}
	return expr.Value(&hcl.EvalContext{Functions: Table(t.TempDir())})
}

// The functions whose meaning differs from go-cty's standard library must
// behave as Terraform's do, since configurations are shared between both.
func TestTerraformSemantics(t *testing.T) {
	for src, want := range map[string]cty.Value{
		`length("héllo")`:                            cty.NumberIntVal(5),
		`length(["a", "b"])`:                         cty.NumberIntVal(2),
		`length({a = 1})`:                            cty.NumberIntVal(1),
		`index(["a", "b", "c"], "b")`:                cty.NumberIntVal(1),
		`replace("v1.2.3", "/[0-9]+/", "N")`:         cty.StringVal("vN.N.N"),
		`replace("a-b", "-", "_")`:                   cty.StringVal("a_b"),
		`coalesce("", "x")`:                          cty.StringVal("x"),
		`coalesce(null, 2)`:                          cty.NumberIntVal(2),
		`strcontains("hello", "ell")`:                cty.True,
		`startswith("hello", "he")`:                  cty.True,
		`endswith("hello", "lo")`:                    cty.True,
		`alltrue([true, true])`:                      cty.True,
		`anytrue([false, true])`:                     cty.True,
		`sum([1, 2, 3])`:                             cty.NumberIntVal(6),
		`one(["only"])`:                              cty.StringVal("only"),
		`sha256("abc")`:                              cty.StringVal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
		`base64decode(base64encode("round trip"))`:   cty.StringVal("round trip"),
		`basename("a/b/c.txt")`:                      cty.StringVal("c.txt"),
		`tostring(nonsensitive(sensitive("shown")))`: cty.StringVal("shown"),
	} {
		got, diags := eval(t, src)
		if diags.HasErrors() {
			t.Errorf("%s: %s", src, diags)
			continue
		}
		if !got.RawEquals(want) && !(got.Type() == cty.Number && got.Equals(want).True()) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
	}
}

func TestSensitiveMarksThrough(t *testing.T) {
	got, diags := eval(t, `upper(sensitive("secret"))`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !marks.IsSensitive(got) {
		t.Fatal("a value derived from a sensitive one lost its mark")
	}
}

func TestReferenceFunctionsCompose(t *testing.T) {
	got, diags := eval(t, `env_reference(file_reference("name.txt"))`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, ok := refs.FromValue(got)
	if !ok {
		t.Fatalf("env_reference returned %#v, not a reference", got)
	}
	if d := r.Description(); d != "(reference env (reference file name.txt))" {
		t.Fatalf("description %q", d)
	}
}

func TestFunctionsWithoutReferenceSupportRefuseReferences(t *testing.T) {
	if _, diags := eval(t, `upper(env_reference("X"))`); !diags.HasErrors() {
		t.Fatal("upper accepted a reference")
	}
	if _, diags := eval(t, `env_reference(42)`); !diags.HasErrors() {
		t.Fatal("env_reference accepted a number")
	}
}

func TestErrorsAreClear(t *testing.T) {
	for _, src := range []string{
		`index(["a"], "z")`,
		`one(["a", "b"])`,
		`file("does-not-exist.txt")`,
		`base64decode("%%%")`,
	} {
		if _, diags := eval(t, src); !diags.HasErrors() {
			t.Errorf("%s succeeded, want an error", src)
		}
	}
}
