package recorder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
)

// The environment variables FromEnv reads.
const (
	// EnvProvider is the path of the real provider plugin binary.
	EnvProvider = "TETHER_RECORDER_PROVIDER"
	// EnvLog is the file the log is appended to; unset, nothing is logged.
	EnvLog = "TETHER_RECORDER_LOG"
	// EnvTool tags each entry, naming the tool that made the calls.
	EnvTool = "TETHER_RECORDER_TOOL"
	// EnvMock set to "1" turns mock mode on.
	EnvMock = "TETHER_RECORDER_MOCK"
	// EnvRealData lists, comma-separated, the data source types that
	// mock mode still forwards to the real provider: those that compute
	// their result locally and touch no cloud (aws_iam_policy_document,
	// aws_partition, aws_region), whose generated stand-ins would make
	// the values built from them invalid (an ARN with a made-up
	// partition).
	EnvRealData = "TETHER_RECORDER_REAL_DATA"
	// EnvSchemaCache is a folder where the wrapper keeps the real
	// provider's schema across runs, so that it asks for it once, not in
	// every process a tool starts. Optional.
	EnvSchemaCache = "TETHER_RECORDER_SCHEMA_CACHE"
)

// Config is what the wrapper runs.
type Config struct {
	Provider    string          // the real provider's binary
	Log         string          // the log file, "" for none
	Tool        string          // the tag of each entry
	Mock        bool            // answer the calls that touch a cloud (see mock.go)
	SchemaCache string          // a folder for the schema across runs, "" for none
	RealData    map[string]bool // data source types mock mode forwards (EnvRealData)
	Reattach    string          // a shared real provider (EnvReattach), "" for none
}

// FromEnv reads the Config from the environment.
func FromEnv() (Config, error) {
	c := Config{
		Provider:    os.Getenv(EnvProvider),
		Log:         os.Getenv(EnvLog),
		Tool:        os.Getenv(EnvTool),
		Mock:        os.Getenv(EnvMock) == "1",
		SchemaCache: os.Getenv(EnvSchemaCache),
		Reattach:    os.Getenv(EnvReattach),
	}
	for _, name := range strings.Split(os.Getenv(EnvRealData), ",") {
		if name = strings.TrimSpace(name); name != "" {
			if c.RealData == nil {
				c.RealData = map[string]bool{}
			}
			c.RealData[name] = true
		}
	}
	if c.Provider == "" && c.Reattach == "" {
		return c, fmt.Errorf("%s is not set: it names the real provider plugin to record", EnvProvider)
	}
	return c, nil
}

// handshake is Terraform's, on both sides of the wrapper.
var handshake = goplugin.HandshakeConfig{
	MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
}

// maxMessageSize is Terraform's limit on a message either way.
const maxMessageSize = 256 << 20

// noPlugin is a go-plugin plugin with no service of its own: on the
// serving side every call reaches the unknown-service handler, and on the
// client side only the connection is used.
type noPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
}

func (noPlugin) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error { return nil }
func (noPlugin) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

// Run starts the real provider, then serves the plugin protocol in the
// version it negotiated with it until the caller is done, and stops it.
func Run(cfg Config) error {
	// The real provider is killed when the thread that started it ends
	// (Linux; setParentDeathSignal): this one, kept by the main goroutine
	// for the life of the process.
	runtime.LockOSThread()
	log, err := openLog(cfg.Log)
	if err != nil {
		return err
	}
	versions := callerVersions()
	plugins := map[int]goplugin.PluginSet{}
	for _, v := range versions {
		plugins[v] = goplugin.PluginSet{"provider": noPlugin{}}
	}
	cc := &goplugin.ClientConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: plugins,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "recorder", Level: hclog.Warn, Output: os.Stderr}),
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.MaxCallSendMsgSize(maxMessageSize))},
	}
	sharedState := ""
	if cfg.Reattach != "" {
		rc, state, err := reattachConfig(cfg.Reattach)
		if err != nil {
			return err
		}
		cc.Reattach, sharedState = rc, state
	} else {
		cmd := exec.Command(cfg.Provider)
		setParentDeathSignal(cmd)
		cc.Cmd, cc.AutoMTLS = cmd, true
	}
	client := goplugin.NewClient(cc)
	if cfg.Reattach == "" {
		// A shared provider outlives the wrapper: only its own is stopped.
		defer client.Kill()
	}
	proto, err := client.Client()
	if err != nil {
		return fmt.Errorf("starting %s: %w", cfg.Provider, err)
	}
	gc, ok := proto.(*goplugin.GRPCClient)
	if !ok {
		return fmt.Errorf("%s did not start a gRPC plugin", cfg.Provider)
	}
	version := client.NegotiatedVersion()
	if cc.Reattach != nil {
		// go-plugin negotiates nothing with a process it reattaches to.
		version = cc.Reattach.ProtocolVersion
	}
	p, err := newProxy(cfg, gc.Conn, version, log)
	if err != nil {
		return err
	}
	p.sharedState = sharedState
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{version: {"provider": noPlugin{}}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts,
				grpc.UnknownServiceHandler(p.handle),
				grpc.ForceServerCodec(passCodec{}),
				grpc.MaxRecvMsgSize(maxMessageSize),
				grpc.MaxSendMsgSize(maxMessageSize),
			)...)
		},
	})
	return nil
}

// callerVersions are the protocol versions the wrapper's caller accepts,
// from go-plugin's environment variable; 5 and 6 when it is unset.
func callerVersions() []int {
	var vs []int
	for _, s := range strings.Split(os.Getenv("PLUGIN_PROTOCOL_VERSIONS"), ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && (v == 5 || v == 6) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		vs = []int{5, 6}
	}
	return vs
}

// proxy forwards the calls of one connection.
type proxy struct {
	cfg        Config
	conn       *grpc.ClientConn
	version    int
	service    protoreflect.ServiceDescriptor
	log        *logFile
	pid        int
	schemaMu   sync.Mutex
	schema     *schemas
	cachedWire []byte // the schema cache's response, once read
	// sharedState is the shared provider's folder (see EnvReattach), ""
	// when the wrapper started its own.
	sharedState string
}

func newProxy(cfg Config, conn *grpc.ClientConn, version int, log *logFile) (*proxy, error) {
	var file protoreflect.FileDescriptor
	switch version {
	case 5:
		file = tfplugin5.File_tfplugin5_proto
	case 6:
		file = tfplugin6.File_tfplugin6_proto
	default:
		return nil, fmt.Errorf("plugin protocol version %d is not supported", version)
	}
	return &proxy{
		cfg:     cfg,
		conn:    conn,
		version: version,
		service: file.Services().ByName("Provider"),
		log:     log,
		pid:     os.Getpid(),
	}, nil
}

// schemaMethod is the name of the schema call in the negotiated version.
func (p *proxy) schemaMethod() string {
	if p.version == 5 {
		return "GetSchema"
	}
	return "GetProviderSchema"
}

// handle serves one call: it answers it itself in mock mode when it is
// one of mock.go's, and otherwise forwards it, logging both messages.
func (p *proxy) handle(_ any, ss grpc.ServerStream) error {
	full, _ := grpc.MethodFromServerStream(ss)
	name := full[strings.LastIndex(full, "/")+1:]
	var md protoreflect.MethodDescriptor
	if strings.HasSuffix(strings.TrimPrefix(full, "/"), "Provider/"+name) {
		md = p.service.Methods().ByName(protoreflect.Name(name))
	}
	var req frame
	if err := ss.RecvMsg(&req); err != nil {
		return err
	}
	ctx := ss.Context()
	if md != nil && md.IsStreamingServer() {
		return p.forwardStream(ctx, ss, full, req)
	}
	var resp frame
	var callErr error
	mocked := false
	switch {
	case p.cfg.Mock && md != nil && mockMethods[name] && !p.forwardsData(name, md, req):
		resp, callErr = p.mock(name, md, req)
		mocked = true
	case p.sharedState != "" && md != nil && (name == "Configure" || name == "ConfigureProvider"):
		resp, callErr = p.configureShared(ctx, full, md, req)
	case name == p.schemaMethod() && p.cachedSchema() != nil:
		// The real provider's own response, kept: building it costs a
		// large provider seconds of CPU, in every process a tool starts.
		resp = p.cachedSchema()
	default:
		callErr = p.conn.Invoke(ctx, full, &req, &resp, grpc.ForceCodec(passCodec{}))
	}
	if callErr == nil && name == p.schemaMethod() {
		p.useSchema(resp)
	}
	if md != nil {
		p.record(name, md, req, resp, mocked, callErr)
	}
	if callErr != nil {
		return callErr
	}
	return ss.SendMsg(&resp)
}

// forwardStream forwards a call whose response is a stream, logging the
// request alone.
func (p *proxy) forwardStream(ctx context.Context, ss grpc.ServerStream, full string, req frame) error {
	cs, err := p.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, full, grpc.ForceCodec(passCodec{}))
	if err != nil {
		return err
	}
	if err := cs.SendMsg(&req); err != nil {
		return err
	}
	if err := cs.CloseSend(); err != nil {
		return err
	}
	for {
		var msg frame
		err := cs.RecvMsg(&msg)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ss.SendMsg(&msg); err != nil {
			return err
		}
	}
}

// record logs one call.
func (p *proxy) record(name string, md protoreflect.MethodDescriptor, req, resp frame, mocked bool, callErr error) {
	if p.log == nil {
		return
	}
	k := kindOf(name)
	e := &Entry{Tool: p.cfg.Tool, PID: p.pid, Protocol: p.version, Method: name, Mocked: mocked}
	if unlogged[name] {
		if callErr != nil {
			e.Error = callErr.Error()
		}
		p.log.write(e)
		return
	}
	reqMsg := dynamicpb.NewMessage(md.Input())
	if err := proto.Unmarshal(req, reqMsg); err != nil {
		e.Error = "recorder: decoding the request: " + err.Error()
	} else {
		e.TypeName = field(reqMsg, "type_name").String()
		if !field(reqMsg, "type_name").IsValid() {
			e.TypeName = ""
		}
		e.Request = p.messageJSON(reqMsg, k, e.TypeName)
	}
	if callErr != nil {
		e.Error = callErr.Error()
	} else {
		respMsg := dynamicpb.NewMessage(md.Output())
		if err := proto.Unmarshal(resp, respMsg); err != nil {
			e.Error = "recorder: decoding the response: " + err.Error()
		} else {
			e.Response = p.messageJSON(respMsg, k, e.TypeName)
		}
	}
	p.log.write(e)
}

// useSchema keeps a schema response that went through.
func (p *proxy) useSchema(resp frame) {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.schema != nil {
		return
	}
	s, err := newSchemas(resp, p.service.Methods().ByName(protoreflect.Name(p.schemaMethod())).Output())
	if err == nil {
		p.schema = s
		p.cacheSchema(resp)
	}
}

// schemas returns the provider's schema: the one its caller asked for,
// the one kept in the schema cache, or else it asks the provider itself.
func (p *proxy) schemas() (*schemas, error) {
	p.schemaMu.Lock()
	s := p.schema
	p.schemaMu.Unlock()
	if s != nil {
		return s, nil
	}
	if wire := p.cachedSchema(); wire != nil {
		p.useSchema(wire)
	} else {
		md := p.service.Methods().ByName(protoreflect.Name(p.schemaMethod()))
		req, _ := proto.Marshal(dynamicpb.NewMessage(md.Input()))
		var resp frame
		full := "/" + string(p.service.FullName()) + "/" + p.schemaMethod()
		if err := p.conn.Invoke(context.Background(), full, (*frame)(&req), &resp, grpc.ForceCodec(passCodec{})); err != nil {
			return nil, fmt.Errorf("reading the provider's schema: %w", err)
		}
		p.useSchema(resp)
	}
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.schema == nil {
		return nil, errors.New("the provider's schema could not be read")
	}
	return p.schema, nil
}

// cachedSchema is the schema response kept in the schema cache, nil when
// there is none. It is read once.
func (p *proxy) cachedSchema() []byte {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.cachedWire == nil && p.cfg.SchemaCache != "" {
		p.cachedWire, _ = os.ReadFile(p.schemaCacheFile())
	}
	return p.cachedWire
}

// schemaCacheFile names the cached schema of this provider binary (by its
// path, size and modification time) and protocol version.
func (p *proxy) schemaCacheFile() string {
	if p.cfg.SchemaCache == "" {
		return ""
	}
	key := fmt.Sprintf("%s\x00%d", p.cfg.Provider, p.version)
	if fi, err := os.Stat(p.cfg.Provider); err == nil {
		key += fmt.Sprintf("\x00%d\x00%d", fi.Size(), fi.ModTime().UnixNano())
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(p.cfg.SchemaCache, "schema-"+hex.EncodeToString(sum[:12])+".pb")
}

// cacheSchema writes the schema to the cache, through a temporary file
// renamed into place so that a reader never sees half of it.
func (p *proxy) cacheSchema(wire []byte) {
	path := p.schemaCacheFile()
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".schema-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(wire)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// typeOf is the type of a value of the type name of kind k; NilType when
// the schema has no such type.
func (p *proxy) typeOf(k kind, typeName string) (cty.Type, error) {
	b, err := p.block(k, typeName)
	if err != nil || b == nil {
		return cty.NilType, err
	}
	return b.ty, nil
}

func (p *proxy) block(k kind, typeName string) (*block, error) {
	s, err := p.schemas()
	if err != nil {
		return nil, err
	}
	return s.get(k, typeName)
}

// forwardsData reports whether a ReadDataSource request in mock mode is
// for a type EnvRealData names, which the real provider answers.
func (p *proxy) forwardsData(name string, md protoreflect.MethodDescriptor, req frame) bool {
	if name != "ReadDataSource" || len(p.cfg.RealData) == 0 {
		return false
	}
	in := dynamicpb.NewMessage(md.Input())
	if err := proto.Unmarshal(req, in); err != nil {
		return false
	}
	return p.cfg.RealData[field(in, "type_name").String()]
}
