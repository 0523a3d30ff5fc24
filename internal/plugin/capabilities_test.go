package plugin

import (
	"context"
	"errors"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// recordingConn is a gRPC connection that answers every call with an
// empty response, or with what answer sets, and keeps the requests by
// method name. One serves both protocol versions' stubs.
type recordingConn struct {
	answer func(method string, reply any) error
	mu     sync.Mutex
	reqs   map[string]proto.Message
}

func (rc *recordingConn) Invoke(_ context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.reqs == nil {
		rc.reqs = map[string]proto.Message{}
	}
	rc.reqs[path.Base(method)] = args.(proto.Message)
	if rc.answer != nil {
		return rc.answer(path.Base(method), reply)
	}
	return nil
}

func (rc *recordingConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, errors.New("no streams here")
}

// fakeClient is a Client whose provider is conn, over the given protocol
// version, with one resource type and one data source, both named x.
func fakeClient(version int, conn *recordingConn) *Client {
	c := &Client{
		path:         "fake-provider",
		life:         context.Background(),
		exited:       context.Background(),
		stderr:       &stderrTail{},
		providerType: protocol.NewValueEncoder(cty.EmptyObject),
		schema: &provider.Schema{
			Provider:    &provider.Block{},
			Resources:   provider.NewTypes(map[string]*provider.ResourceSchema{"x": {Block: &provider.Block{}}}),
			DataSources: provider.NewTypes(map[string]*provider.ResourceSchema{"x": {Block: &provider.Block{}}}),
		},
		planDestroy: true,
	}
	c.rpc = rpc6{c: tfplugin6.NewProviderClient(conn), cc: conn}
	if version == 5 {
		c.rpc = rpc5{c: tfplugin5.NewProviderClient(conn), cc: conn}
	}
	return c
}

// Every call that has client capabilities sends them: deferral and
// write-only attributes allowed.
func TestClientCapabilitiesSent(t *testing.T) {
	for _, version := range []int{5, 6} {
		t.Run(protocolName(version), func(t *testing.T) {
			conn := &recordingConn{}
			c := fakeClient(version, conn)
			ctx := context.Background()
			obj := cty.EmptyObjectVal
			c.ConfigureProvider(ctx, cty.EmptyObjectVal)
			c.ValidateResourceConfig("x", obj)
			c.ReadResource(ctx, provider.ReadRequest{TypeName: "x", PriorState: obj})
			c.PlanResourceChange(ctx, provider.PlanRequest{TypeName: "x", PriorState: obj, ProposedNewState: obj, Config: obj})
			c.ImportResourceState(ctx, provider.ImportRequest{TypeName: "x", ID: "i"})
			c.ReadDataSource(ctx, provider.ReadDataRequest{TypeName: "x", Config: obj})

			methods := map[int][]string{
				5: {"Configure", "ValidateResourceTypeConfig", "ReadResource", "PlanResourceChange", "ImportResourceState", "ReadDataSource"},
				6: {"ConfigureProvider", "ValidateResourceConfig", "ReadResource", "PlanResourceChange", "ImportResourceState", "ReadDataSource"},
			}[version]
			for _, m := range methods {
				req, ok := conn.reqs[m]
				if !ok {
					t.Errorf("%s not called", m)
					continue
				}
				caps, ok := messageField(req, "client_capabilities")
				if !ok {
					t.Errorf("%s: no client capabilities sent", m)
					continue
				}
				for name, want := range map[string]bool{"deferral_allowed": deferralAllowed, "write_only_attributes_allowed": writeOnlyAttributesAllowed} {
					f := caps.Descriptor().Fields().ByName(protoreflect.Name(name))
					if f == nil {
						// Not every message carries every capability.
						continue
					}
					if strings.HasPrefix(m, "Validate") && name == "deferral_allowed" {
						// Validation is never deferred.
						continue
					}
					if v := caps.Get(f); v.Bool() != want {
						t.Errorf("%s: %s is %v, want %v", m, name, v.Bool(), want)
					}
				}
			}
		})
	}
}

// A provider that defers a plan says so, and why, in both versions.
func TestDeferredPlan(t *testing.T) {
	for _, version := range []int{5, 6} {
		t.Run(protocolName(version), func(t *testing.T) {
			conn := &recordingConn{answer: func(method string, reply any) error {
				switch r := reply.(type) {
				case *tfplugin5.PlanResourceChange_Response:
					r.Deferred = &tfplugin5.Deferred{Reason: tfplugin5.Deferred_PROVIDER_CONFIG_UNKNOWN}
				case *tfplugin6.PlanResourceChange_Response:
					r.Deferred = &tfplugin6.Deferred{Reason: tfplugin6.Deferred_PROVIDER_CONFIG_UNKNOWN}
				}
				return nil
			}}
			c := fakeClient(version, conn)
			obj := cty.EmptyObjectVal
			plan := c.PlanResourceChange(context.Background(), provider.PlanRequest{TypeName: "x", PriorState: obj, ProposedNewState: obj, Config: obj})
			if plan.Deferred != "its provider's configuration is not known yet" || plan.Diagnostics.HasErrors() {
				t.Errorf("deferred %q, diagnostics %v", plan.Deferred, plan.Diagnostics)
			}
		})
	}
}

func protocolName(version int) string {
	return map[int]string{5: "protocol5", 6: "protocol6"}[version]
}

// messageField returns the message in field name of m, if it is set.
func messageField(m proto.Message, name string) (protoreflect.Message, bool) {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil || !r.Has(fd) {
		return nil, false
	}
	return r.Get(fd).Message(), true
}
