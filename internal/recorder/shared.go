package recorder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/tetherhq/tether/internal/filelock"
)

// EnvReattach, when set, names a real provider already running (the JSON
// of Shared.Env) that the wrapper uses instead of starting its own, and
// leaves running when it stops.
//
// A tool starts its providers once for each graph walk, several times a
// command, and a large provider such as hashicorp/aws costs seconds of CPU
// to start: a test running many configurations starts it once instead.
// One process then serves every caller. A provider is configured once in
// its life (hashicorp/aws fails a second ConfigureProvider), so the first
// wrapper's ConfigureProvider goes to it and the later ones get its
// response replayed when their configuration is the same, an error when
// it is not (configureShared): the callers sharing one must configure it
// alike.
const EnvReattach = "TETHER_RECORDER_REATTACH"

// reattach is how EnvReattach writes the address: Terraform's own
// TF_REATTACH_PROVIDERS form of one provider.
type reattach struct {
	Protocol        string
	ProtocolVersion int
	Pid             int
	Addr            struct{ Network, String string }
	// State is a folder the wrappers share: the first configuration and
	// its response.
	State string
}

// Shared is a real provider started once for many wrappers.
type Shared struct {
	client *goplugin.Client
	state  string
	// Env is the EnvReattach=... entry that points a wrapper at it.
	Env string
}

// StartShared starts the real provider at path, without the mutual TLS
// of a provider's usual start (a wrapper reattaching has no certificate
// to present): it listens on a Unix socket in a folder of its own.
func StartShared(path string) (*Shared, error) {
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{
			5: {"provider": noPlugin{}},
			6: {"provider": noPlugin{}},
		},
		Cmd:              exec.Command(path),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "recorder", Level: hclog.Warn, Output: os.Stderr}),
	})
	if _, err := client.Client(); err != nil {
		client.Kill()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	state, err := os.MkdirTemp("", "recorder-shared-")
	if err != nil {
		client.Kill()
		return nil, err
	}
	rc := client.ReattachConfig()
	var r reattach
	r.Protocol, r.ProtocolVersion, r.Pid = string(rc.Protocol), client.NegotiatedVersion(), rc.Pid
	r.Addr.Network, r.Addr.String = rc.Addr.Network(), rc.Addr.String()
	r.State = state
	js, err := json.Marshal(r)
	if err != nil {
		client.Kill()
		return nil, err
	}
	return &Shared{client: client, state: state, Env: EnvReattach + "=" + string(js)}, nil
}

// Close stops the real provider.
func (s *Shared) Close() {
	s.client.Kill()
	os.RemoveAll(s.state)
}

// reattachConfig reads EnvReattach's value: the provider's address, and
// the folder of shared state.
func reattachConfig(js string) (*goplugin.ReattachConfig, string, error) {
	var r reattach
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		return nil, "", fmt.Errorf("%s: %w", EnvReattach, err)
	}
	var addr net.Addr
	switch r.Addr.Network {
	case "unix":
		addr = &net.UnixAddr{Net: "unix", Name: r.Addr.String}
	case "tcp":
		a, err := net.ResolveTCPAddr("tcp", r.Addr.String)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", EnvReattach, err)
		}
		addr = a
	default:
		return nil, "", fmt.Errorf("%s: unknown network %q", EnvReattach, r.Addr.Network)
	}
	// Test mode: the wrapper's end must not stop the shared process.
	return &goplugin.ReattachConfig{
		Protocol:        goplugin.Protocol(r.Protocol),
		ProtocolVersion: r.ProtocolVersion,
		Pid:             r.Pid,
		Addr:            addr,
		Test:            true,
	}, r.State, nil
}

// configureShared answers a ConfigureProvider call for a shared provider:
// the first configuration goes to it, and its response is kept in the
// shared folder; a later call with the same configuration gets that
// response, one with another configuration an error.
func (p *proxy) configureShared(ctx context.Context, full string, md protoreflect.MethodDescriptor, req frame) (frame, error) {
	in := dynamicpb.NewMessage(md.Input())
	if err := proto.Unmarshal(req, in); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "recorder: decoding the request: %v", err)
	}
	dv := field(in, "config").Message()
	sum := sha256.Sum256(append(append([]byte{}, field(dv, "msgpack").Bytes()...), field(dv, "json").Bytes()...))
	key := hex.EncodeToString(sum[:])
	unlock, err := filelock.Lock(filepath.Join(p.sharedState, "configure.lock"))
	if err != nil {
		return nil, status.Errorf(codes.Internal, "recorder: %v", err)
	}
	defer unlock()
	keyFile, respFile := filepath.Join(p.sharedState, "configured"), filepath.Join(p.sharedState, "configure-response.pb")
	if had, err := os.ReadFile(keyFile); err == nil {
		if string(had) != key {
			return nil, status.Errorf(codes.FailedPrecondition,
				"recorder: the shared provider is already configured, with another provider configuration; the callers sharing it must configure it alike")
		}
		resp, err := os.ReadFile(respFile)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "recorder: %v", err)
		}
		return resp, nil
	}
	var resp frame
	if err := p.conn.Invoke(ctx, full, &req, &resp, grpc.ForceCodec(passCodec{})); err != nil {
		return nil, err
	}
	if err := os.WriteFile(respFile, resp, 0o644); err != nil {
		return nil, status.Errorf(codes.Internal, "recorder: %v", err)
	}
	if err := os.WriteFile(keyFile, []byte(key), 0o644); err != nil {
		return nil, status.Errorf(codes.Internal, "recorder: %v", err)
	}
	return resp, nil
}
