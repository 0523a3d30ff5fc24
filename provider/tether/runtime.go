package tether

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// defaultRuntimeDir is where the local runtime keeps its files when the
// provider configuration does not say: relative to the working directory,
// which the tether command sets to the configuration folder, so next to
// the state.
const defaultRuntimeDir = ".tether/runtime"

// runtimeConfig is the provider configuration the runtime resources share.
type runtimeConfig struct {
	mu   sync.Mutex
	root string // absolute; empty until configured or first used
}

func (c *runtimeConfig) configure(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.root = abs
	c.mu.Unlock()
	return nil
}

// dir is the runtime folder. An unconfigured provider (one that Terraform
// never configured, say) uses the default.
func (c *runtimeConfig) dir() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root == "" {
		abs, err := filepath.Abs(defaultRuntimeDir)
		if err != nil {
			return "", err
		}
		c.root = abs
	}
	return c.root, nil
}

// instanceDir is the folder of one runtime resource: its log, its
// process file, a router's routes, a store's data.
func (c *runtimeConfig) instanceDir(id string) (string, error) {
	root, err := c.dir()
	if err != nil {
		return "", err
	}
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("%q is not the id of a runtime resource", id)
	}
	return filepath.Join(root, id), nil
}

// instanceState is what a runtime resource keeps in its private state:
// where its files are and which process is its own. Private, so that
// Terraform and plans never show it, and every call gets it back.
type instanceState struct {
	Dir string `json:"dir"`
	procInfo
}

func decodeInstance(private []byte) instanceState {
	var s instanceState
	if len(private) > 0 {
		_ = json.Unmarshal(private, &s) // unreadable means nothing known
	}
	return s
}

func (s instanceState) encode() []byte {
	b, _ := json.Marshal(s)
	return b
}

// stoppedWarning is the warning a refresh gives for a runtime process that
// ended outside Tether.
func stoppedWarning(what string, s instanceState) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  fmt.Sprintf("%s is not running", what),
		Detail: withLog(fmt.Sprintf("Its process %d ended outside Tether; the next apply (tether up) starts it again.", s.PID),
			filepath.Join(s.Dir, logFileName)),
	}
}

// withAttrs returns obj with some attributes replaced.
func withAttrs(obj cty.Value, set map[string]cty.Value) cty.Value {
	vals := obj.AsValueMap()
	for k, v := range set {
		vals[k] = v
	}
	return cty.ObjectVal(vals)
}

func loopbackURL(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }

// RuntimeMain runs this binary as one of the local runtime's own processes
// when it was started as one (`BINARY runtime MODE ...`), and returns
// otherwise. The provider starts routers and stores by running the binary
// it is part of, be it tether, terraform-provider-tether or a program built
// with the Go SDK, so every such binary calls RuntimeMain first thing in
// main.
//
// The modes that users may run themselves are `echo`, a trivial HTTP
// function for examples and tests, and `http-get`, a small HTTP check for
// tether_tester tests; `router` and `kv` are started by the provider.
func RuntimeMain() {
	if len(os.Args) < 2 || os.Args[1] != "runtime" {
		return
	}
	os.Exit(runtimeCommand(os.Args[2:], os.Stdout, os.Stderr))
}

func runtimeCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		runtimeUsage(stderr)
		return 2
	}
	switch args[0] {
	case "router":
		return runRouter(args[1:], stderr)
	case "kv":
		return runKV(args[1:], stderr)
	case "echo":
		return runEcho(args[1:], stdout, stderr)
	case "http-get":
		return runHTTPGet(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		runtimeUsage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "runtime: unknown mode %q\n\n", args[0])
	runtimeUsage(stderr)
	return 2
}

func runtimeUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: tether runtime MODE [options]

Modes users run:
  echo [-kv-env NAME]      An HTTP function on 127.0.0.1:$PORT that answers
                           ?message=TEXT with TEXT ("No message" without it)
                           and panics on /panic. With -kv-env, it also stores
                           each message under "last-message" in the tether_kv
                           whose endpoint is in the environment variable NAME.
  http-get [-want-status N] [-want-body TEXT] URL
                           GET the URL (which may name environment variables
                           as $NAME), print the body, and exit 1 unless the
                           status (default 200) and body are as wanted.

Modes the provider starts:
  router -dir DIR [-port N]
  kv -dir DIR [-port N]
`)
}
