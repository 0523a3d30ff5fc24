package tether

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/durable"
	"github.com/tetherhq/tether/internal/provider"
)

// serviceResource is a long-lived server of the local runtime that this
// very binary provides: a router or a key-value store. The provider starts
// it as `BINARY runtime MODE -dir DIR -port N` (see RuntimeMain), because
// the provider may run inside tether, inside terraform-provider-tether or
// inside a Go program, and each of them outlives none of its servers.
type serviceResource struct {
	rt       *runtimeConfig
	typeName string // tether_router
	what     string // router
	mode     string // the runtime mode: router
	urlAttr  string // the attribute holding the server's URL
}

func routerResource(rt *runtimeConfig) serviceResource {
	return serviceResource{rt: rt, typeName: "tether_router", what: "router", mode: "router", urlAttr: "url"}
}

func kvResource(rt *runtimeConfig) serviceResource {
	return serviceResource{rt: rt, typeName: "tether_kv", what: "key-value store", mode: "kv", urlAttr: "endpoint"}
}

func routerResourceSchema() *provider.ResourceSchema {
	s := serviceSchema("url",
		"An HTTP router on the loopback interface: a process that keeps running after up returns and sends each request to the function its tether_route names. Unknown routes get 404; a function that does not answer, 502.",
		"http://127.0.0.1:PORT, where the router listens. Runtime code may read it (a captured property).")
	s.Closures = provider.ClosureRoutes
	return s
}

func kvResourceSchema() *provider.ResourceSchema {
	s := serviceSchema("endpoint",
		"A small key-value store served over HTTP on the loopback interface, its data kept under the runtime folder until destroy. Functions use it through the Go package github.com/tetherhq/tether/runtime/kv, or plain HTTP: GET, PUT and DELETE on /v1/kv/{key}. Keys are at most 1 KiB of UTF-8, values at most 384 KiB.",
		"http://127.0.0.1:PORT, where the store listens. Runtime code may read it (a captured property).")
	s.Client = &provider.ClientAPI{Import: "github.com/tetherhq/tether/runtime/kv", Package: "kv", Open: "Open", Type: "*kv.Client", Property: "endpoint"}
	return s
}

func serviceSchema(urlAttr, description, urlDescription string) *provider.ResourceSchema {
	return &provider.ResourceSchema{
		Captured: []string{urlAttr},
		Block: &provider.Block{
			Description: description,
			Attributes: map[string]*provider.Attribute{
				"port": {
					Type:        cty.Number,
					Optional:    true,
					Computed:    true,
					Description: "Port on 127.0.0.1, from 1 to 65535; a port in use is an error. Chosen by the system when not given, and kept across restarts while it is free. Changing it restarts the server.",
				},
				urlAttr: {
					Type:        cty.String,
					Computed:    true,
					Description: urlDescription,
				},
				"pid": {
					Type:        cty.Number,
					Computed:    true,
					Description: "Process id; null once the process has ended outside Tether.",
				},
				"log_file": {
					Type:        cty.String,
					Computed:    true,
					Description: "File that receives the server's log, removed by destroy.",
				},
				"id": {
					Type:        cty.String,
					Computed:    true,
					Description: "Random identifier assigned at creation; also the name of the server's folder in the runtime folder.",
				},
			},
		},
	}
}

func (r serviceResource) object(port, url, pid, logFile, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"port":     port,
		r.urlAttr:  url,
		"pid":      pid,
		"log_file": logFile,
		"id":       id,
	})
}

func (r serviceResource) validate(config cty.Value) hcl.Diagnostics {
	if d := validatePort(attr(config, "port")); d != nil {
		return hcl.Diagnostics{d}
	}
	return nil
}

func (r serviceResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg, prior := req.Config, req.PriorState
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	cfgPort := attr(cfg, "port")
	created := prior.IsNull()
	stopped := !created && attr(prior, "pid").IsNull()
	portChanged := !cfgPort.IsNull() && (created || changed(attr(prior, "port"), cfgPort))
	if !created && !stopped && !portChanged {
		return provider.PlanResponse{PlannedState: prior, PlannedPrivate: req.PriorPrivate}
	}

	port := cty.UnknownVal(cty.Number)
	switch {
	case !cfgPort.IsNull():
		port = cfgPort
		if p, ok := portOf(cfgPort); ok && (portChanged || stopped) && !waitPortFree(ctx, p, portSettle) {
			return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: hcl.Diagnostics{attrError("port", portInUse(p))}}
		}
	case stopped:
		// Restarted where it was, if it can be, so that whatever captured
		// its URL need not change.
		if p, ok := portOf(attr(prior, "port")); ok && waitPortFree(ctx, p, portSettle) {
			port = cty.NumberIntVal(int64(p))
		}
	}
	url := cty.UnknownVal(cty.String)
	if p, ok := portOf(port); ok {
		url = cty.StringVal(loopbackURL(p))
	}
	id, logFile := cty.UnknownVal(cty.String), cty.UnknownVal(cty.String)
	if !created {
		id, logFile = attr(prior, "id"), attr(prior, "log_file")
	}
	return provider.PlanResponse{
		PlannedState:   r.object(port, url, cty.UnknownVal(cty.Number), logFile, id),
		PlannedPrivate: req.PriorPrivate,
	}
}

func (r serviceResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	var exe string
	return applyProcess(ctx, r.rt, req, processStart{
		what: r.what,
		check: func() hcl.Diagnostics {
			if !runtimeSupported {
				return opError(fmt.Sprintf("Cannot start the %s", r.what), "", errNoRuntime)
			}
			var err error
			if exe, err = os.Executable(); err != nil {
				return opError(fmt.Sprintf("Cannot start the %s: this program cannot find its own executable", r.what), "", err)
			}
			return nil
		},
		http:    true,
		prepare: r.prepare,
		command: func(dir string, port int) ([]string, []string, string) {
			return []string{exe, "runtime", r.mode, "-dir", dir, "-port", strconv.Itoa(port)}, childEnv(nil), dir
		},
		startError: func(err error) hcl.Diagnostics {
			return opError(fmt.Sprintf("Cannot start the %s", r.what), "", err)
		},
		wait: func(ctx context.Context, c *child, dir string, port int) error {
			ready, err := waitReady(ctx, c, dir, defaultStartTimeout)
			var got int
			if err == nil {
				got, err = urlPort(ready.URL)
			}
			if err == nil && got != port {
				err = fmt.Errorf("it listens on port %d instead of %d", got, port)
			}
			return err
		},
		notUp: func(err error, logPath string) hcl.Diagnostics {
			msg := withLog(fmt.Sprintf("The %s did not start: %v.", r.what, err), logPath)
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: fmt.Sprintf("The %s did not start", r.what), Detail: msg}}
		},
		object: func(port, pid int, logPath, id string) cty.Value {
			return r.object(cty.NumberIntVal(int64(port)), cty.StringVal(loopbackURL(port)), cty.NumberIntVal(int64(pid)), cty.StringVal(logPath), cty.StringVal(id))
		},
	})
}

// prepare makes the server's folder ready for a start: a router needs the
// token that guards its admin endpoint, and no ready file may be left from
// an earlier process.
func (r serviceResource) prepare(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, readyFileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if r.mode != "router" {
		return nil
	}
	tokenPath := filepath.Join(dir, tokenFileName)
	if tok, err := os.ReadFile(tokenPath); err == nil && strings.TrimSpace(string(tok)) != "" {
		return nil // a restart keeps the token its routes were registered with
	}
	// No token, or an empty one (a truncated file): a new token. The
	// routes live in their own file and outlast it.
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	return durable.WriteFile(tokenPath, []byte(hex.EncodeToString(b[:])+"\n"), 0o600)
}

func urlPort(s string) (int, error) {
	u, err := url.Parse(s)
	if err != nil {
		return 0, err
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0, fmt.Errorf("it reported the address %q, which has no port", s)
	}
	return p, nil
}

func (r serviceResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	what := "The router"
	if r.mode == "kv" {
		what = "The key-value store"
	}
	return readInstance(what, req)
}

func (r serviceResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importRuntime(r.typeName)
}

// serviceFlags reads the arguments every long-lived runtime process takes
// (its runtime folder and port) and makes its logger; ok is false after it
// has said what was wrong.
func serviceFlags(name, what string, args []string, stderr io.Writer) (dir string, port int, logger *log.Logger, ok bool) {
	fset := flag.NewFlagSet(name, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.StringVar(&dir, "dir", "", "runtime folder of the "+what)
	fset.IntVar(&port, "port", 0, "port on 127.0.0.1; 0 lets the system choose")
	if err := fset.Parse(args); err != nil {
		return "", 0, nil, false
	}
	logger = log.New(stderr, name+": ", log.LstdFlags)
	if dir == "" {
		logger.Print("-dir is required")
		return "", 0, nil, false
	}
	return dir, port, logger, true
}
