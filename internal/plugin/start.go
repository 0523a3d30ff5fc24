package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"github.com/tetherhq/tether/internal/provider"
	"google.golang.org/grpc"
)

// handshake is Terraform's: a provider plugin refuses to start without this
// cookie in its environment, and go-plugin offers it the protocol versions
// in versionedPlugins.
var handshake = goplugin.HandshakeConfig{
	MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
}

// pluginName is the name Terraform dispenses providers under; go-plugin's
// gRPC servers accept any, but keeping Terraform's costs nothing.
const pluginName = "provider"

func versionedPlugins() map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{
		5: {pluginName: grpcPlugin{version: 5}},
		6: {pluginName: grpcPlugin{version: 6}},
	}
}

// grpcPlugin is the client half of a go-plugin plugin: it turns the
// connection go-plugin established into an rpcClient of the negotiated
// version.
type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	version int
}

// dispensed is what grpcPlugin hands back: the protocol client, and a
// context go-plugin cancels once the plugin process has exited.
type dispensed struct {
	rpc    rpcClient
	exited context.Context
}

func (p grpcPlugin) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error {
	return errors.New("tether runs provider plugins; it does not serve them through this package")
}

func (p grpcPlugin) GRPCClient(exited context.Context, _ *goplugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	switch p.version {
	case 5:
		return dispensed{rpc: rpc5{c: tfplugin5.NewProviderClient(conn), cc: conn}, exited: exited}, nil
	case 6:
		return dispensed{rpc: rpc6{c: tfplugin6.NewProviderClient(conn), cc: conn}, exited: exited}, nil
	}
	return nil, fmt.Errorf("plugin protocol version %d is not supported", p.version)
}

// Start runs the provider plugin binary at path, as Terraform does, and
// returns it as a provider.Provider. It speaks plugin protocol versions 5
// and 6, whichever the binary offers (6 if both).
//
// ctx bounds the start only: launching the process, the handshake and
// reading the schema, which every later call needs. The process then runs
// until Close; the caller must call Close, including when the provider's
// calls fail.
func Start(ctx context.Context, path string) (provider.Provider, error) {
	c, err := StartWith(ctx, path, StartOptions{})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// StartOptions changes how StartWith runs a provider plugin. The zero
// value starts it as Start does.
type StartOptions struct {
	// SchemaCacheDir, if not empty, is a directory (created as needed)
	// where schemas are kept across runs, keyed by the SHA-256 of the
	// binary. A provider whose kept schema declares the capability
	// GetProviderSchemaOptional then gets its schema from there, without
	// the call, which for a large provider costs seconds of CPU and a
	// hundred megabytes; any other provider is still asked, as Terraform
	// does, and the cache only written. Problems with the cache never fail
	// a start. Several processes may share one directory.
	SchemaCacheDir string
}

// StartWith is Start with options, returning the client itself.
func StartWith(ctx context.Context, path string, opts StartOptions) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("provider plugin %s: not started: %w", path, err)
	}
	var cache *schemaCache
	if opts.SchemaCacheDir != "" {
		cache = openSchemaCache(opts.SchemaCacheDir, path)
	}
	// life ends with the client. exec kills the process when it ends, which
	// is how a cancelled ctx interrupts go-plugin's wait for the handshake:
	// go-plugin itself takes no context.
	life, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, path)
	cmd.Env = pluginEnv(os.Environ(), logging.ProvidersLogged())
	ownProcessGroup(cmd)
	stderr := &stderrTail{}
	proc := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: versionedPlugins(),
		Cmd:              cmd,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		// go-plugin logs at trace level to stderr unless told otherwise;
		// what the plugin prints still reaches stderr below.
		Logger: logging.Provider(),
		Stderr: stderr,
	})
	c := &Client{path: path, proc: proc, cmd: cmd, stderr: stderr, life: life, cancel: cancel}

	stopWatching := context.AfterFunc(ctx, cancel)
	fail := func(err error) (*Client, error) {
		stopWatching()
		// A plugin that failed to start gets no graceful shutdown, nor do
		// the processes it started, which could hold its stderr open.
		killProcessGroup(cmd)
		// Close first: it waits for the process, so stderr is complete.
		c.Close()
		// A cancelled start fails however the killed process happened to
		// disrupt it; the cancellation is the news.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("provider plugin %s: start interrupted: %w", path, ctxErr)
		}
		err = c.explainStart(err)
		// A binary that is not a provider plugin, or one that cannot start,
		// usually says why on stderr.
		if out := strings.TrimSpace(c.stderr.String()); out != "" {
			err = fmt.Errorf("%w\nThe plugin wrote to stderr:\n%s", err, out)
		}
		return nil, fmt.Errorf("provider plugin %s: %w", path, err)
	}

	if err := c.launch(); err != nil {
		return fail(err)
	}
	rpcProto, err := proc.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := rpcProto.Dispense(pluginName)
	if err != nil {
		return fail(err)
	}
	d, ok := raw.(dispensed)
	if !ok {
		return fail(fmt.Errorf("unexpected plugin client %T", raw))
	}
	c.rpc, c.exited, c.protocolVersion = d.rpc, d.exited, proc.NegotiatedVersion()
	if rc := proc.ReattachConfig(); rc != nil {
		c.pid = rc.Pid
	}

	ls, err := c.readSchema(ctx, cache)
	if err != nil {
		return fail(fmt.Errorf("reading the provider schema: %w", err))
	}
	if !stopWatching() {
		return fail(ctx.Err())
	}
	c.useSchema(ls)
	return c, nil
}

// explainStart rewords go-plugin's account of a failed handshake, which
// guesses at causes (the wrong architecture, missing libraries) that the
// exit status and stderr usually settle. It recognises go-plugin's
// messages by their text, as go-plugin offers nothing else; others pass
// unchanged. It is called after Close, when the process has been waited
// for.
func (c *Client) explainStart(err error) error {
	// Only an exit status is news: a signal may be the kill that ended the
	// failed start.
	exit := "it exited"
	if ps := c.cmd.ProcessState; ps != nil && ps.Exited() && ps.ExitCode() != 0 {
		exit = fmt.Sprintf("it exited with status %d", ps.ExitCode())
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	if printed, ok := strings.CutPrefix(line, "Unrecognized remote plugin message: "); ok {
		if printed == "" {
			return fmt.Errorf("%s before the plugin handshake: it failed to start, or it is not a Terraform provider plugin", exit)
		}
		return fmt.Errorf("it printed %q where the plugin handshake belongs: it is not a Terraform provider plugin", printed)
	}
	if line == "plugin exited before we could connect" {
		return fmt.Errorf("%s before Tether could connect to it", exit)
	}
	return err
}

// launch starts the process and waits for its handshake, from a goroutine
// that keeps its OS thread until the client's life ends. Where the process
// is started with a parent-death signal (ownProcessGroup), the kernel
// sends it when the thread that started the process ends, not the parent
// process: holding the thread makes that "when the client is done", and
// still "when Tether dies", however it dies. (A thread Go would otherwise
// end, after some other goroutine's LockOSThread, would kill the provider
// under a running client.)
func (c *Client) launch() error {
	started := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine.
		runtime.LockOSThread()
		_, err := c.proc.Start()
		started <- err
		<-c.life.Done()
	}()
	return <-started
}

// Close stops the plugin process and waits until it has exited, with
// every process it started that stayed in its process group. Calls in
// progress fail. Close is safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		// Kill asks the plugin to shut down, kills it after a grace
		// period, and returns once the process is reaped, which needs its
		// stdout and stderr closed. A child the plugin left behind can
		// keep them open, so the group goes after killGrace: until Kill
		// returns, the plugin is not reaped and its group id is its own.
		killed := make(chan struct{})
		go func() {
			c.proc.Kill()
			close(killed)
		}()
		select {
		case <-killed:
		case <-time.After(killGrace):
			killProcessGroup(c.cmd)
			<-killed
		}
		killProcessGroup(c.cmd)
		c.cancel()
	})
	return nil
}

// killGrace is how long Close waits for go-plugin's own shutdown (which
// gives the plugin two seconds to exit by itself) before killing the
// whole process group.
const killGrace = 3 * time.Second

// stderrTail keeps the end of what the plugin writes to stderr: when a
// plugin dies, its last words are the only account of why. For a Go panic
// the first line matters most, so from one on it keeps the beginning.
type stderrTail struct {
	mu        sync.Mutex
	buf       []byte
	panicking bool
}

const stderrTailSize = 8 << 10

// Write is called by go-plugin with one line at a time, then its newline.
func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case !t.panicking && (bytes.HasPrefix(p, []byte("panic: ")) || bytes.HasPrefix(p, []byte("fatal error: "))):
		t.panicking = true
		t.buf = append(t.buf[:0], p...)
	case t.panicking:
		t.buf = append(t.buf, p[:min(len(p), stderrTailSize-len(t.buf))]...)
	case bytes.HasPrefix(p, []byte(`{"@`)):
		// A structured log record (terraform-plugin-log writes them when
		// TF_LOG asks): the provider's own logging, not its last words.
	default:
		t.buf = append(t.buf, p...)
		if over := len(t.buf) - stderrTailSize; over > 0 {
			t.buf = append(t.buf[:0], t.buf[over:]...)
		}
	}
	return len(p), nil
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// quietLogs turn off the logging of HashiCorp's plugin libraries, which
// otherwise write every call at trace level as JSON to stderr for the
// client to read and drop: for a large plan, a third of the provider's
// CPU time (bench/RESULTS.md).
var quietLogs = []string{
	"TF_LOG_PROVIDER=off", "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off",
	"TF_LOG_SDK_HELPER_SCHEMA=off", "TF_LOG_SDK_HELPER_RESOURCE=off", "TF_LOG_SDK_MUX=off",
}

// pluginEnv is the environment a plugin runs with: the caller's, with the
// libraries' logging off unless the provider logs are wanted (the
// user's TF_LOG_PROVIDER, see internal/logging). TF_LOG alone, TF_LOG_CORE
// or TF_LOG=off do not want them: Tether would read every line the
// provider formats and drop it.
func pluginEnv(environ []string, logged bool) []string {
	if logged {
		return environ
	}
	// Later entries win (os/exec keeps the last of a name), so these
	// override any TF_LOG_SDK* the user set for nothing.
	return append(environ[:len(environ):len(environ)], quietLogs...)
}
