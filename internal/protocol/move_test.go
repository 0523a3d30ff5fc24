package protocol_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/provider/tether"
)

// mover is the built-in provider that also moves an "a" object of any
// provider to a tether_value holding the source JSON as its input.
type mover struct {
	provider.Provider
	got provider.MoveRequest
}

func (m *mover) MoveResourceState(ctx context.Context, req provider.MoveRequest) provider.MoveResponse {
	m.got = req
	if req.SourceTypeName != "a" {
		return m.Provider.MoveResourceState(ctx, req)
	}
	return provider.MoveResponse{
		TargetState: cty.ObjectVal(map[string]cty.Value{
			"input":    cty.StringVal(string(req.SourceStateJSON)),
			"output":   cty.StringVal(string(req.SourceStateJSON)),
			"delay_ms": cty.NullVal(cty.Number),
			"id":       cty.StringVal("moved"),
		}),
		TargetPrivate: []byte("p"),
	}
}

// MoveResourceState is served from the provider's: the request reaches it
// whole, and its answer, object or refusal, goes back to Terraform; the
// schema tells Terraform it may ask.
func TestServeMoveResourceState(t *testing.T) {
	m := &mover{Provider: tether.New()}
	srv := protocol.Server(m)
	ctx := context.Background()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !schemas.ServerCapabilities.MoveResourceState {
		t.Error("the MoveResourceState capability is not announced")
	}
	valueType := schemas.ResourceSchemas["tether_value"].ValueType()
	for _, tc := range []struct {
		name      string
		req       tfprotov6.MoveResourceStateRequest
		wantInput string // the moved object's input, "" for an error
		wantErr   string // the error's summary and a part of its detail
		wantText  string
	}{
		{
			name: "moved",
			req: tfprotov6.MoveResourceStateRequest{SourceProviderAddress: "registry.terraform.io/example/a", SourceTypeName: "a", SourceSchemaVersion: 2,
				SourceState: &tfprotov6.RawState{JSON: []byte(`{"id":"i"}`)}, SourcePrivate: []byte("sp"), TargetTypeName: "tether_value"},
			wantInput: `{"id":"i"}`,
		},
		{
			name: "refused by the provider",
			req: tfprotov6.MoveResourceStateRequest{SourceProviderAddress: protocol.Address, SourceTypeName: "tether_random",
				SourceState: &tfprotov6.RawState{JSON: []byte(`{}`)}, TargetTypeName: "tether_value"},
			wantErr:  "Move not supported",
			wantText: "does not support moving resources of type tether_random (of registry.terraform.io/tetherhq/tether) to tether_value",
		},
		{
			name:     "unknown target",
			req:      tfprotov6.MoveResourceStateRequest{SourceTypeName: "a", SourceState: &tfprotov6.RawState{JSON: []byte(`{}`)}, TargetTypeName: "tether_nothing"},
			wantErr:  "Unsupported resource type",
			wantText: `"tether_nothing"`,
		},
		{
			name:     "flatmap state",
			req:      tfprotov6.MoveResourceStateRequest{SourceTypeName: "a", SourceState: &tfprotov6.RawState{Flatmap: map[string]string{"id": "i"}}, TargetTypeName: "tether_value"},
			wantErr:  "Unsupported stored state",
			wantText: "in JSON",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := srv.MoveResourceState(ctx, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary != tc.wantErr || !strings.Contains(resp.Diagnostics[0].Detail, tc.wantText) {
					t.Errorf("diagnostics %v, want one %q containing %q", resp.Diagnostics, tc.wantErr, tc.wantText)
				}
				if resp.TargetState != nil {
					t.Errorf("a target state with an error")
				}
				return
			}
			noDiags(t, "MoveResourceState", resp.Diagnostics)
			want := provider.MoveRequest{SourceProviderAddress: tc.req.SourceProviderAddress, SourceTypeName: "a", SourceSchemaVersion: 2,
				SourceStateJSON: tc.req.SourceState.JSON, SourcePrivate: []byte("sp"), TargetTypeName: "tether_value"}
			if m.got.SourceProviderAddress != want.SourceProviderAddress || m.got.SourceSchemaVersion != want.SourceSchemaVersion ||
				string(m.got.SourceStateJSON) != string(want.SourceStateJSON) || string(m.got.SourcePrivate) != "sp" || m.got.TargetTypeName != want.TargetTypeName {
				t.Errorf("the provider got %+v, want %+v", m.got, want)
			}
			v, err := resp.TargetState.Unmarshal(valueType)
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			var input string
			if err := attrs["input"].As(&input); err != nil || input != tc.wantInput || string(resp.TargetPrivate) != "p" {
				t.Errorf("moved input %q (%v), private %q; want %q and %q", input, err, resp.TargetPrivate, tc.wantInput, "p")
			}
		})
	}
}
