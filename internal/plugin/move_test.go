package plugin

import (
	"context"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// MoveResourceState sends the source object as recorded and decodes the
// target's answer, in both protocol versions; a provider that predates the
// call, or answers with nothing, gets an error that names both types.
func TestMoveResourceState(t *testing.T) {
	moved, err := protocol.EncodeValue(cty.EmptyObjectVal, cty.EmptyObject)
	if err != nil {
		t.Fatal(err)
	}
	// answer sets the response's target state (when state), private data
	// and diagnostic (when summary), in either version.
	answer := func(state bool, summary string) func(string, any) error {
		return func(_ string, reply any) error {
			switch r := reply.(type) {
			case *tfplugin5.MoveResourceState_Response:
				if state {
					r.TargetState = &tfplugin5.DynamicValue{Msgpack: moved.MsgPack}
				}
				r.TargetPrivate = []byte("p")
				if summary != "" {
					r.Diagnostics = []*tfplugin5.Diagnostic{{Severity: tfplugin5.Diagnostic_ERROR, Summary: summary}}
				}
			case *tfplugin6.MoveResourceState_Response:
				if state {
					r.TargetState = &tfplugin6.DynamicValue{Msgpack: moved.MsgPack}
				}
				r.TargetPrivate = []byte("p")
				if summary != "" {
					r.Diagnostics = []*tfplugin6.Diagnostic{{Severity: tfplugin6.Diagnostic_ERROR, Summary: summary}}
				}
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name   string
		answer func(string, any) error
		// wantErr is the error's summary and a part of its detail; ""
		// for a move that succeeds.
		wantErr, wantDetail string
	}{
		{name: "moved", answer: answer(true, "")},
		{name: "refused", answer: answer(false, "Unable to Move Resource State"), wantErr: "Unable to Move Resource State"},
		{
			name:       "unimplemented",
			answer:     func(string, any) error { return status.Error(codes.Unimplemented, "unknown method MoveResourceState") },
			wantErr:    "Move not supported",
			wantDetail: "fake-provider does not support moving resources of type a to x",
		},
		{
			name:       "no object",
			answer:     answer(false, ""),
			wantErr:    "Provider produced an invalid moved state",
			wantDetail: "move of a a object to x",
		},
	} {
		for _, version := range []int{5, 6} {
			t.Run(tc.name+"/"+protocolName(version), func(t *testing.T) {
				conn := &recordingConn{answer: tc.answer}
				c := fakeClient(version, conn)
				resp := c.MoveResourceState(context.Background(), provider.MoveRequest{
					SourceProviderAddress: "registry.terraform.io/example/a",
					SourceTypeName:        "a",
					SourceSchemaVersion:   3,
					SourceStateJSON:       []byte(`{"id":"i"}`),
					SourcePrivate:         []byte("source private"),
					TargetTypeName:        "x",
				})
				req := conn.reqs["MoveResourceState"]
				want := map[int]proto.Message{
					5: &tfplugin5.MoveResourceState_Request{SourceProviderAddress: "registry.terraform.io/example/a", SourceTypeName: "a", SourceSchemaVersion: 3,
						SourceState: &tfplugin5.RawState{Json: []byte(`{"id":"i"}`)}, SourcePrivate: []byte("source private"), TargetTypeName: "x"},
					6: &tfplugin6.MoveResourceState_Request{SourceProviderAddress: "registry.terraform.io/example/a", SourceTypeName: "a", SourceSchemaVersion: 3,
						SourceState: &tfplugin6.RawState{Json: []byte(`{"id":"i"}`)}, SourcePrivate: []byte("source private"), TargetTypeName: "x"},
				}[version]
				if !proto.Equal(req, want) {
					t.Errorf("request %v, want %v", req, want)
				}
				if tc.wantErr == "" {
					if resp.Diagnostics.HasErrors() || !resp.TargetState.RawEquals(cty.EmptyObjectVal) || string(resp.TargetPrivate) != "p" {
						t.Errorf("got %#v, private %q, diagnostics %v; want the empty object and private %q", resp.TargetState, resp.TargetPrivate, resp.Diagnostics, "p")
					}
					return
				}
				if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary != tc.wantErr {
					t.Fatalf("diagnostics %v, want one error %q", resp.Diagnostics, tc.wantErr)
				}
				if !strings.Contains(resp.Diagnostics[0].Detail, tc.wantDetail) {
					t.Errorf("detail %q, want it to contain %q", resp.Diagnostics[0].Detail, tc.wantDetail)
				}
				if !resp.TargetState.IsNull() {
					t.Errorf("target state %#v with an error, want null", resp.TargetState)
				}
			})
		}
	}
}
