package tether

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

const maxStartTimeout = 10 * time.Minute

// functionResource is a process on this machine: a command with its
// arguments and environment, typically an HTTP server. A Go program built
// with the SDK deploys its closures as functions too: its own binary, with
// an environment variable that selects the closure.
type functionResource struct{ rt *runtimeConfig }

func functionResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{
		Captured: []string{"url"},
		Closures: provider.ClosureHandler,
		Block: &provider.Block{
			Description: "A process on this machine that keeps running after up returns, typically an HTTP server on the loopback interface. Destroy stops it; a process that ended is restarted by the next up.",
			Attributes: map[string]*provider.Attribute{
				"command": {
					Type:        cty.List(cty.String),
					Required:    true,
					Description: "The executable and its arguments. An executable without a slash is looked up on PATH; one with a slash is relative to dir. Changing it restarts the process.",
				},
				"env": {
					Type:        cty.Map(cty.String),
					Optional:    true,
					Description: "Environment variables set for the process. Besides them it gets only PATH, HOME, TMPDIR and the locale (LANG, LANGUAGE, LC_*, TZ) from Tether's environment. Changing them restarts the process.",
				},
				"dir": {
					Type:        cty.String,
					Optional:    true,
					Description: "Working directory of the process, relative to the configuration folder unless absolute. Defaults to the configuration folder.",
				},
				"http": {
					Type:        cty.Bool,
					Optional:    true,
					Computed:    true,
					Description: "Whether the process serves HTTP: it must then listen on 127.0.0.1 at the port given in its PORT environment variable, and up waits until it does. Defaults to true.",
				},
				"port": {
					Type:        cty.Number,
					Optional:    true,
					Computed:    true,
					Description: "The port passed as PORT, from 1 to 65535. Chosen by the system when not given, and kept across restarts while it is free.",
				},
				"start_timeout": {
					Type:        cty.String,
					Optional:    true,
					Description: "How long up waits for the process to listen, as a Go duration such as \"30s\". Defaults to \"15s\".",
				},
				"url": {
					Type:        cty.String,
					Computed:    true,
					Description: "http://127.0.0.1:PORT for a function that serves HTTP, null otherwise. Runtime code may read it (a captured property).",
				},
				"pid": {
					Type:        cty.Number,
					Computed:    true,
					Description: "Process id; null once the process has ended outside Tether.",
				},
				"log_file": {
					Type:        cty.String,
					Computed:    true,
					Description: "File that receives the process's standard output and error, kept across restarts and removed by destroy.",
				},
				"id": {
					Type:        cty.String,
					Computed:    true,
					Description: "Random identifier assigned at creation; also the name of the function's folder in the runtime folder.",
				},
			},
		},
	}
}

func functionObject(cfg cty.Value, httpOn, port, url, pid, logFile, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"command":       attr(cfg, "command"),
		"env":           attr(cfg, "env"),
		"dir":           attr(cfg, "dir"),
		"http":          httpOn,
		"port":          port,
		"start_timeout": attr(cfg, "start_timeout"),
		"url":           url,
		"pid":           pid,
		"log_file":      logFile,
		"id":            id,
	})
}

func (functionResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	diags = append(diags, validateCommand("command", attr(config, "command"))...)
	diags = append(diags, validateEnv("env", attr(config, "env"))...)
	if d, ok := knownString(attr(config, "dir")); ok && d == "" {
		diags = append(diags, attrError("dir", "The working directory must not be empty; leave dir out to use the configuration folder."))
	}
	if d := validatePort(attr(config, "port")); d != nil {
		diags = append(diags, d)
	}
	h := attr(config, "http")
	httpOff := h.IsKnown() && !h.IsNull() && h.False()
	if env := attr(config, "env"); !httpOff && !env.IsNull() && env.IsKnown() && env.Type().IsMapType() {
		if has := env.HasIndex(cty.StringVal("PORT")); has.IsKnown() && has.True() {
			diags = append(diags, attrError("env", "PORT is where Tether tells a function that serves HTTP which port to listen on; leave it out of env, and set port to choose the port."))
		}
	}
	if httpOff && !attr(config, "port").IsNull() {
		diags = append(diags, attrError("port", "port only applies to a function that serves HTTP; remove it or set http = true."))
	}
	if s, ok := knownString(attr(config, "start_timeout")); ok {
		if _, err := parseTimeout(s, maxStartTimeout); err != nil {
			diags = append(diags, attrError("start_timeout", err.Error()))
		}
	}
	return diags
}

func validateCommand(name string, v cty.Value) hcl.Diagnostics {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	if v.LengthInt() == 0 {
		return hcl.Diagnostics{attrError(name, "The command is empty: give the executable first, then its arguments, such as [\"python3\", \"server.py\"].")}
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsKnown() && e.IsNull() {
			return hcl.Diagnostics{attrError(name, "The command holds a null element; every element must be a string.")}
		}
	}
	if s, ok := knownString(v.Index(cty.NumberIntVal(0))); ok && s == "" {
		return hcl.Diagnostics{attrError(name, "The executable, the command's first element, is empty.")}
	}
	return nil
}

func validateEnv(name string, v cty.Value) hcl.Diagnostics {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	for it := v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		key := k.AsString()
		if key == "" || strings.ContainsAny(key, "=\x00") {
			return hcl.Diagnostics{attrError(name, fmt.Sprintf("%q is not an environment variable name: names are not empty and hold no \"=\".", key))}
		}
	}
	return nil
}

func validatePort(v cty.Value) *hcl.Diagnostic {
	n, ok, isInt := knownInt(v)
	if ok && (!isInt || n < 1 || n > 65535) {
		return attrError("port", fmt.Sprintf("The port must be a whole number from 1 to 65535; got %s.", v.AsBigFloat().Text('f', -1)))
	}
	return nil
}

func parseTimeout(s string, max time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > max {
		return 0, fmt.Errorf("%q is not a timeout: give a positive Go duration up to %s, such as \"30s\" or \"2m\".", s, max)
	}
	return d, nil
}

// lookCommand checks that a command can be started, the way exec would
// find it, so that a typo is an error at plan rather than at apply.
func lookCommand(name, dir string) error {
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		path := name
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		info, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Errorf("the command %q does not exist (looked for %s)", name, path)
		case info.IsDir():
			return fmt.Errorf("the command %q is a directory", name)
		case info.Mode()&0o111 == 0:
			return fmt.Errorf("the command %q is not executable (chmod +x %s)", name, path)
		}
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		if errors.Is(err, exec.ErrDot) {
			return fmt.Errorf("the command %q is found only in the current folder through PATH; write ./%s", name, name)
		}
		return fmt.Errorf("the command %q is not on PATH", name)
	}
	return nil
}

// checkCommand is lookCommand for a configured command list, as a
// diagnostic; it says nothing while the command is unknown.
func checkCommand(name string, cmd, dir cty.Value) *hcl.Diagnostic {
	argv, ok := knownStrings(cmd)
	if !ok || len(argv) == 0 || argv[0] == "" {
		return nil
	}
	d, _ := knownString(dir)
	if !dir.IsKnown() {
		return nil
	}
	if err := lookCommand(argv[0], d); err != nil {
		return attrError(name, capitalize(err.Error())+".")
	}
	return nil
}

// knownStrings converts a wholly known list of strings.
func knownStrings(v cty.Value) ([]string, bool) {
	if v.IsNull() || !v.IsWhollyKnown() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		s, ok := knownString(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// knownStringMap converts a wholly known map of strings; null is empty.
func knownStringMap(v cty.Value) (map[string]string, bool) {
	out := map[string]string{}
	if v.IsNull() {
		return out, true
	}
	if !v.IsWhollyKnown() {
		return nil, false
	}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		s, ok := knownString(e)
		if !ok {
			return nil, false
		}
		out[k.AsString()] = s
	}
	return out, true
}

func portOf(v cty.Value) (int, bool) {
	n, ok, isInt := knownInt(v)
	if !ok || !isInt || n < 1 || n > 65535 {
		return 0, false
	}
	return int(n), true
}

func (r functionResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg, prior := req.Config, req.PriorState
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	if d := checkCommand("command", attr(cfg, "command"), attr(cfg, "dir")); d != nil {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: hcl.Diagnostics{d}}
	}
	httpOn := attr(cfg, "http")
	if httpOn.IsNull() {
		httpOn = cty.True
	}
	cfgPort := attr(cfg, "port")

	created := prior.IsNull()
	stopped := !created && attr(prior, "pid").IsNull()
	restart := created || stopped ||
		changed(attr(prior, "command"), attr(cfg, "command")) ||
		changed(attr(prior, "env"), attr(cfg, "env")) ||
		changed(attr(prior, "dir"), attr(cfg, "dir")) ||
		changed(attr(prior, "http"), httpOn) ||
		(!cfgPort.IsNull() && changed(attr(prior, "port"), cfgPort))

	id, logFile, pid := cty.UnknownVal(cty.String), cty.UnknownVal(cty.String), cty.UnknownVal(cty.Number)
	if !created {
		id, logFile = attr(prior, "id"), attr(prior, "log_file")
	}
	if !restart {
		pid = attr(prior, "pid")
	}

	port := cty.UnknownVal(cty.Number)
	switch {
	case !httpOn.IsKnown():
	case httpOn.False():
		port = cty.NullVal(cty.Number)
	case !cfgPort.IsNull():
		port = cfgPort
		p, known := portOf(cfgPort)
		// Our own running process holds its port; any other holder is
		// someone else.
		ours := !created && !stopped && !changed(attr(prior, "port"), cfgPort)
		if known && !ours && !waitPortFree(ctx, p, portSettle) {
			return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: hcl.Diagnostics{attrError("port", portInUse(p))}}
		}
	case !created:
		// Keep the port, and so the url that others may have captured,
		// unless it went to someone else while the process was down.
		if p, ok := portOf(attr(prior, "port")); ok && (!stopped || waitPortFree(ctx, p, portSettle)) {
			port = cty.NumberIntVal(int64(p))
		}
	}
	url := cty.UnknownVal(cty.String)
	switch {
	case port.IsNull():
		url = cty.NullVal(cty.String)
	case port.IsKnown():
		if p, ok := portOf(port); ok {
			url = cty.StringVal(loopbackURL(p))
		}
	}
	return provider.PlanResponse{
		PlannedState:   functionObject(cfg, httpOn, port, url, pid, logFile, id),
		PlannedPrivate: req.PriorPrivate,
	}
}

func (r functionResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned := req.PlannedState
	if planned.IsNull() {
		return applyProcess(ctx, r.rt, req, processStart{what: "function"})
	}
	argv, ok1 := knownStrings(attr(planned, "command"))
	env, ok2 := knownStringMap(attr(planned, "env"))
	dirV := attr(planned, "dir")
	httpOn := attr(planned, "http")
	workDir, _ := knownString(dirV)
	timeout := defaultStartTimeout
	if s, ok := knownString(attr(planned, "start_timeout")); ok {
		if d, err := parseTimeout(s, maxStartTimeout); err == nil {
			timeout = d
		}
	}
	return applyProcess(ctx, r.rt, req, processStart{
		what: "function",
		check: func() hcl.Diagnostics {
			if !ok1 || !ok2 || !dirV.IsKnown() || !httpOn.IsKnown() || len(argv) == 0 {
				return incomplete("tether_function", "command, env, dir and http")
			}
			if err := lookCommand(argv[0], workDir); err != nil {
				return hcl.Diagnostics{attrError("command", capitalize(err.Error())+".")}
			}
			return nil
		},
		http:    httpOn.IsKnown() && httpOn.True(),
		prepare: func(dir string) error { return os.MkdirAll(dir, 0o700) },
		command: func(dir string, port int) ([]string, []string, string) {
			if port != 0 {
				env["PORT"] = strconv.Itoa(port)
			}
			appendLog(filepath.Join(dir, logFileName), fmt.Sprintf("--- tether: starting the function at %s ---\n", time.Now().Format(time.RFC3339)))
			return argv, childEnv(env), workDir
		},
		startError: func(err error) hcl.Diagnostics {
			return opError("Cannot start the function's command", fmt.Sprintf("starting %q", argv[0]), err)
		},
		wait: func(ctx context.Context, c *child, _ string, port int) error {
			if port != 0 {
				return waitListening(ctx, c, port, timeout)
			}
			return waitSettled(ctx, c)
		},
		notUp: func(err error, logPath string) hcl.Diagnostics {
			msg := withLog(fmt.Sprintf("The function's command %q did not start: %v.", argv[0], err), logPath)
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Function did not start", Detail: msg}}
		},
		object: func(port, pid int, logPath, id string) cty.Value {
			portV, url := cty.NullVal(cty.Number), cty.NullVal(cty.String)
			if port != 0 {
				portV, url = cty.NumberIntVal(int64(port)), cty.StringVal(loopbackURL(port))
			}
			return functionObject(planned, httpOn, portV, url, cty.NumberIntVal(int64(pid)), cty.StringVal(logPath), cty.StringVal(id))
		},
	})
}

func appendLog(path, line string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}

func incomplete(typeName, what string) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Incomplete planned " + typeName,
		Detail:   what + " must all be known when the process starts.",
	}}
}

// destroyInstance stops a runtime resource's process and removes its
// folder.
func destroyInstance(ctx context.Context, what string, prior cty.Value, inst instanceState) provider.ApplyResponse {
	if err := stopProcess(ctx, inst.procInfo); err != nil {
		return provider.ApplyResponse{NewState: prior, Private: inst.encode(), Diagnostics: opError(fmt.Sprintf("Cannot stop the %s", what), "", err)}
	}
	// Return once the port is free too: whatever runs next may want it.
	// Busy longer means someone else has it, which is not ours to wait for.
	if p, ok := portOf(attr(prior, "port")); ok && inst.PID != 0 {
		waitPortFree(ctx, p, portRelease)
	}
	if err := removeInstanceDir(inst.Dir); err != nil {
		inst.procInfo = procInfo{}
		return provider.ApplyResponse{NewState: prior, Private: inst.encode(), Diagnostics: opError(fmt.Sprintf("Cannot remove the %s's folder", what), "", err)}
	}
	return provider.ApplyResponse{NewState: cty.NullVal(prior.Type())}
}

// readInstance refreshes a runtime resource: one whose process ended
// outside Tether comes back with a null pid, which plans a restart.
func readInstance(what string, req provider.ReadRequest) provider.ReadResponse {
	inst := decodeInstance(req.Private)
	if inst.PID == 0 || inst.running() {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
	}
	if attr(req.PriorState, "pid").IsNull() {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
	}
	return provider.ReadResponse{
		NewState:    withAttrs(req.PriorState, map[string]cty.Value{"pid": cty.NullVal(cty.Number)}),
		Private:     req.Private,
		Diagnostics: hcl.Diagnostics{stoppedWarning(what, inst)},
	}
}

func (r functionResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	return readInstance("The function", req)
}

func (functionResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importRuntime("tether_function")
}

func importRuntime(typeName string) provider.ImportResponse {
	return provider.ImportResponse{Diagnostics: hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Import not supported",
		Detail:   fmt.Sprintf("A %s is a process Tether starts and watches from the moment it creates it; there is nothing to import. Declare the resource and let up start it.", typeName),
	}}}
}
