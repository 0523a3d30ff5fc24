package protocol_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestFunctionsOverProtocol checks the built-in provider's function as
// Terraform sees it: declared in the schema and by GetFunctions with its
// parameters' types, and called with arguments in Terraform's encoding.
func TestFunctionsOverProtocol(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	decl := f.schemas.Functions["apply"]
	if decl == nil {
		t.Fatalf("the schema declares no function apply: %v", f.schemas.Functions)
	}
	if len(decl.Parameters) != 2 || !decl.Parameters[0].Type.Is(tftypes.String) || decl.VariadicParameter == nil ||
		!decl.VariadicParameter.Type.Is(tftypes.DynamicPseudoType) || !decl.VariadicParameter.AllowNullValue ||
		!decl.Return.Type.Is(tftypes.DynamicPseudoType) || decl.Description == "" {
		t.Errorf("apply is declared as %+v", decl)
	}
	gf, err := f.srv.GetFunctions(ctx, &tfprotov6.GetFunctionsRequest{})
	if err != nil || gf.Functions["apply"] == nil {
		t.Errorf("GetFunctions: %v, %v", err, gf)
	}
	md, err := f.srv.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil || len(md.Functions) != 1 || md.Functions[0].Name != "apply" {
		t.Errorf("metadata functions: %v, %+v", err, md)
	}

	str := func(s string) *tfprotov6.DynamicValue {
		return dynamic(t, tftypes.String, tftypes.NewValue(tftypes.String, s))
	}
	for _, c := range []struct {
		name string
		args []*tfprotov6.DynamicValue
		want string
		arg  int64
	}{
		{"apply", []*tfprotov6.DynamicValue{str("./no-such-program"), str("main.go:1"), dynamic(t, tftypes.DynamicPseudoType, tftypes.NewValue(tftypes.String, "x"))}, "running ./no-such-program to compute the result of its tether.Apply at main.go:1 failed", 0},
		{"nope", nil, "This provider has no function named nope.", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := f.srv.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: c.name, Arguments: c.args})
			if err != nil || r.Error == nil || !strings.Contains(r.Error.Text, c.want) {
				t.Fatalf("CallFunction(%s) = %v, %+v; want an error with %q", c.name, err, r.Error, c.want)
			}
			if c.arg < 0 && r.Error.FunctionArgument != nil {
				t.Errorf("the error points at argument %d", *r.Error.FunctionArgument)
			}
		})
	}
}
