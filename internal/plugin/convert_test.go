package plugin

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

// The built-in provider has no nested attributes, so the lifecycle tests
// never send one; this checks their decoding from the wire.
func TestSchemaFrom6NestedAttributes(t *testing.T) {
	s := &tfplugin6.Schema{Version: 2, Block: &tfplugin6.Schema_Block{
		Attributes: []*tfplugin6.Schema_Attribute{
			{Name: "name", Type: []byte(`"string"`), Required: true},
			{Name: "servers", Optional: true, NestedType: &tfplugin6.Schema_Object{
				Nesting: tfplugin6.Schema_Object_LIST,
				Attributes: []*tfplugin6.Schema_Attribute{
					{Name: "host", Type: []byte(`"string"`), Required: true},
					{Name: "ports", Type: []byte(`["list","number"]`), Optional: true},
				},
			}},
		},
		BlockTypes: []*tfplugin6.Schema_NestedBlock{{
			TypeName: "timeouts",
			Nesting:  tfplugin6.Schema_NestedBlock_SINGLE,
			Block:    &tfplugin6.Schema_Block{Attributes: []*tfplugin6.Schema_Attribute{{Name: "create", Type: []byte(`"string"`), Optional: true}}},
		}},
	}}
	ts, err := schemaFrom6(s)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := protocol.SchemaFromTF(ts)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Version != 2 {
		t.Errorf("version %d", rs.Version)
	}
	want := cty.List(cty.ObjectWithOptionalAttrs(map[string]cty.Type{"host": cty.String, "ports": cty.List(cty.Number)}, []string{"ports"}))
	if got := rs.Block.Attributes["servers"].Type; !got.Equals(want) {
		t.Errorf("servers: %#v, want %#v", got, want)
	}
	if nb := rs.Block.BlockTypes["timeouts"]; nb == nil || nb.Nesting != provider.NestingSingle || nb.Attributes["create"].Type != cty.String {
		t.Errorf("timeouts: %#v", nb)
	}
}

func TestBadSchemaTypeIsReported(t *testing.T) {
	resp := &tfplugin5.Schema{Block: &tfplugin5.Schema_Block{Attributes: []*tfplugin5.Schema_Attribute{
		{Name: "x", Type: []byte(`["frobnicate"]`), Optional: true},
	}}}
	if _, err := schemaFrom5(resp); err == nil || !strings.Contains(err.Error(), `attribute "x"`) {
		t.Errorf("schemaFrom5: %v", err)
	}
}

func TestDiagnosticsFromWire(t *testing.T) {
	in := []*tfplugin6.Diagnostic{
		{Severity: tfplugin6.Diagnostic_WARNING, Summary: "w"},
		{Severity: tfplugin6.Diagnostic_INVALID, Summary: "invalid counts as an error"},
		{Severity: tfplugin6.Diagnostic_ERROR, Summary: "e", Detail: "d", Attribute: &tfplugin6.AttributePath{Steps: []*tfplugin6.AttributePath_Step{
			{Selector: &tfplugin6.AttributePath_Step_AttributeName{AttributeName: "rule"}},
			{Selector: &tfplugin6.AttributePath_Step_ElementKeyInt{ElementKeyInt: 2}},
			{Selector: &tfplugin6.AttributePath_Step_AttributeName{AttributeName: "tags"}},
			{Selector: &tfplugin6.AttributePath_Step_ElementKeyString{ElementKeyString: "env"}},
			{}, // a step from a newer protocol: the path stops here
			{Selector: &tfplugin6.AttributePath_Step_AttributeName{AttributeName: "lost"}},
		}}},
	}
	diags := protocol.DiagnosticsFromTF(diagsFrom6(in))
	if len(diags) != 3 || diags[0].Severity != hcl.DiagWarning || diags[1].Severity != hcl.DiagError || diags[2].Severity != hcl.DiagError {
		t.Fatalf("diagnostics %v", diags)
	}
	pe, ok := hcl.DiagnosticExtra[protocol.AttributePather](diags[2])
	if !ok {
		t.Fatal("no path")
	}
	want := cty.GetAttrPath("rule").IndexInt(2).GetAttr("tags").IndexString("env")
	if !pe.AttributePath().Equals(want) {
		t.Errorf("path %#v, want %#v", pe.AttributePath(), want)
	}
}

func TestStderrTail(t *testing.T) {
	var tail stderrTail
	for range 2000 {
		tail.Write([]byte("some log line"))
		tail.Write([]byte("\n"))
	}
	if n := len(tail.String()); n > stderrTailSize {
		t.Errorf("kept %d bytes", n)
	}
	tail.Write([]byte("panic: boom"))
	tail.Write([]byte("\n"))
	for range 2000 {
		tail.Write([]byte("goroutine frame"))
		tail.Write([]byte("\n"))
	}
	if s := tail.String(); !strings.HasPrefix(s, "panic: boom\n") || len(s) > stderrTailSize {
		t.Errorf("panic output kept as %d bytes starting %q", len(s), s[:min(len(s), 40)])
	}
}
