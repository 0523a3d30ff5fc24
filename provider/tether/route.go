package tether

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// routeResource is one route of a tether_router. It is a resource of its
// own, not a block of the router, so that a function can capture the
// router's url and still be routed to: router, then function, then route.
type routeResource struct{ rt *runtimeConfig }

func routeResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "A route of a tether_router: requests with the method and path go to the target, path and query unchanged.",
		Attributes: map[string]*provider.Attribute{
			"router_id": {
				Type:        cty.String,
				Required:    true,
				Description: "The id of the tether_router. Changing it replaces the route.",
			},
			"method": {
				Type:        cty.String,
				Required:    true,
				Description: "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS, or ANY for every method. Changing it replaces the route.",
			},
			"path": {
				Type:        cty.String,
				Required:    true,
				Description: "Path the route matches, starting with \"/\": exact (\"/echo\"), a subtree when it ends in \"/\" (\"/static/\"), with {name} matching one segment and {name...} the rest. Changing it replaces the route.",
			},
			"target": {
				Type:        cty.String,
				Required:    true,
				Description: "Base URL requests go to, normally a tether_function's url.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "Random identifier assigned at creation.",
			},
		},
	}}
}

func (routeResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if s, ok := knownString(attr(config, "router_id")); ok && s == "" {
		diags = append(diags, attrError("router_id", "The router id must not be empty; use tether_router.NAME.id."))
	}
	if s, ok := knownString(attr(config, "method")); ok {
		if err := checkMethod(s); err != nil {
			diags = append(diags, attrError("method", capitalize(err.Error())))
		}
	}
	if s, ok := knownString(attr(config, "path")); ok {
		if err := checkPath(s); err != nil {
			diags = append(diags, attrError("path", capitalize(err.Error())+"."))
		}
	}
	if s, ok := knownString(attr(config, "target")); ok {
		if err := checkTarget(s); err != nil {
			diags = append(diags, attrError("target", capitalize(err.Error())+"."))
		}
	}
	return diags
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func routeObject(cfg, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"router_id": attr(cfg, "router_id"),
		"method":    attr(cfg, "method"),
		"path":      attr(cfg, "path"),
		"target":    attr(cfg, "target"),
		"id":        id,
	})
}

func (r routeResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	if diags := r.validate(req.Config); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	prior := req.PriorState
	id := cty.UnknownVal(cty.String)
	resp := provider.PlanResponse{PlannedPrivate: req.PriorPrivate}
	if !prior.IsNull() {
		id = attr(prior, "id")
		for _, name := range []string{"router_id", "method", "path"} {
			if changed(attr(prior, name), attr(req.Config, name)) {
				resp.RequiresReplace = append(resp.RequiresReplace, cty.GetAttrPath(name))
			}
		}
	}
	resp.PlannedState = routeObject(req.Config, id)
	return resp
}

// routeState is the route's private state: the router's folder, found
// from router_id at creation, so that a later runtime_dir does not lose it.
type routeState struct {
	RouterDir string `json:"router_dir"`
}

func (r routeResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned, prior := req.PlannedState, req.PriorState
	var priv routeState
	if len(req.PlannedPrivate) > 0 {
		_ = json.Unmarshal(req.PlannedPrivate, &priv)
	}
	if planned.IsNull() {
		e := entryOf(prior)
		if err := removeRoute(ctx, priv.RouterDir, e); err != nil {
			return provider.ApplyResponse{NewState: prior, Private: req.PlannedPrivate, Diagnostics: opError("Cannot remove route", fmt.Sprintf("removing the route %s", e.key()), err)}
		}
		return provider.ApplyResponse{NewState: cty.NullVal(prior.Type())}
	}
	failed := prior
	if failed.IsNull() {
		failed = cty.NullVal(planned.Type())
	}
	e := entryOf(planned)
	if e.Method == "" || e.Path == "" || e.Target == "" {
		return provider.ApplyResponse{NewState: failed, Private: req.PlannedPrivate, Diagnostics: incomplete("tether_route", "router_id, method, path and target")}
	}
	routerID, _ := knownString(attr(planned, "router_id"))
	if priv.RouterDir == "" {
		dir, err := r.rt.instanceDir(routerID)
		if err != nil {
			return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{attrError("router_id", err.Error())}}
		}
		priv.RouterDir = dir
	}
	created := e.ID == ""
	e.Owner = provider.ObjectFrom(ctx)
	if created {
		// Added as pending, then confirmed: a run interrupted in between
		// leaves a route that the next run's create replaces.
		e.ID = newID()
		me := identify(os.Getpid())
		e.Pending = &me
	}
	if err := putRoute(ctx, priv.RouterDir, routerID, e, false); err != nil {
		return provider.ApplyResponse{NewState: failed, Private: req.PlannedPrivate, Diagnostics: opError("Cannot add route", fmt.Sprintf("adding the route %s", e.key()), err)}
	}
	b, _ := json.Marshal(priv)
	newState := routeObject(planned, cty.StringVal(e.ID))
	if created {
		// Not pending in the body either: a router started by an earlier
		// Tether, which knows no ?confirm, takes it as the confirm it was.
		e.Pending = nil
		if err := putRoute(ctx, priv.RouterDir, routerID, e, true); err != nil {
			// The route is there, under the id returned: recorded, the
			// create failed, and the next up replaces it.
			return provider.ApplyResponse{NewState: newState, Private: b, Diagnostics: opError("Cannot add route", fmt.Sprintf("confirming the route %s", e.key()), err)}
		}
	}
	return provider.ApplyResponse{NewState: newState, Private: b}
}

func entryOf(obj cty.Value) routeEntry {
	get := func(name string) string { s, _ := knownString(attr(obj, name)); return s }
	return routeEntry{ID: get("id"), Method: get("method"), Path: get("path"), Target: get("target")}
}

// adminClient makes the calls to a router's admin endpoint; tests put
// requests that arrive late through it.
var adminClient = http.DefaultClient

// routerAdmin is how a route reaches its router.
type routerAdmin struct {
	dir   string
	proc  procInfo
	admin string
	token string
}

func openRouter(dir string) (*routerAdmin, error) {
	a := &routerAdmin{dir: dir}
	if err := readJSON(filepath.Join(dir, processFileName), &a.proc); err != nil {
		return nil, err
	}
	var ri readyInfo
	if err := readJSON(filepath.Join(dir, readyFileName), &ri); err != nil {
		return nil, err
	}
	a.admin = ri.Admin
	tok, err := os.ReadFile(filepath.Join(dir, tokenFileName))
	if err != nil {
		return nil, err
	}
	a.token = strings.TrimSpace(string(tok))
	return a, nil
}

func (a *routerAdmin) call(ctx context.Context, method string, e routeEntry) error {
	return a.callURL(ctx, method, a.admin+"/v1/routes", e)
}

func (a *routerAdmin) callURL(ctx context.Context, method, url string, e routeEntry) error {
	body, _ := json.Marshal(e)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := adminClient.Do(req)
	if err != nil {
		return fmt.Errorf("the router's admin endpoint did not answer: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return fmt.Errorf("the router refused: %s", strings.TrimSpace(string(msg)))
}

// putRoute adds or changes the route e; with confirm, it confirms the
// pending route e (same id) instead, and fails if the router no longer
// holds it.
func putRoute(ctx context.Context, dir, routerID string, e routeEntry, confirm bool) error {
	a, err := openRouter(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no running tether_router with id %q (nothing in %s). Give the id of a tether_router of this configuration, such as tether_router.main.id", routerID, dir)
	}
	if err != nil {
		return fmt.Errorf("cannot reach the router %q: %w", routerID, err)
	}
	if !a.proc.running() {
		return fmt.Errorf("the tether_router %q is not running; the next up restarts it, and then its routes", routerID)
	}
	if confirm {
		return a.callURL(ctx, http.MethodPut, a.admin+"/v1/routes?confirm=1", e)
	}
	return a.call(ctx, http.MethodPut, e)
}

// removeRoute takes a route off its router. A router that no longer runs
// would find the route in its routes file on a restart, so there the file
// is changed instead; a router that is gone took its routes with it.
func removeRoute(ctx context.Context, dir string, e routeEntry) error {
	if dir == "" {
		return nil
	}
	a, err := openRouter(dir)
	if err == nil && a.proc.running() {
		return a.call(ctx, http.MethodDelete, e)
	}
	routes, err := loadRoutes(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	kept := routes[:0]
	found := false
	for _, r := range routes {
		if r.key() == e.key() && r.ID == e.ID {
			found = true
			continue
		}
		kept = append(kept, r)
	}
	if !found {
		return nil
	}
	return writeJSON(filepath.Join(dir, routesFileName), routesFile{Routes: kept})
}

func (r routeResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	var priv routeState
	if len(req.Private) > 0 {
		_ = json.Unmarshal(req.Private, &priv)
	}
	if priv.RouterDir == "" {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
	}
	// The routes file is the truth: the router writes it before it
	// answers, and reads it when it restarts.
	routes, err := loadRoutes(priv.RouterDir)
	if err != nil {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: opError("Cannot read the router's routes", "", err)}
	}
	e := entryOf(req.PriorState)
	if _, err := os.Stat(priv.RouterDir); errors.Is(err, fs.ErrNotExist) {
		return provider.ReadResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	for _, r := range routes {
		if r.key() == e.key() && r.ID == e.ID {
			return provider.ReadResponse{
				NewState: withAttrs(req.PriorState, map[string]cty.Value{"target": cty.StringVal(r.Target)}),
				Private:  req.Private,
			}
		}
	}
	return provider.ReadResponse{NewState: cty.NullVal(req.PriorState.Type())}
}

func (routeResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importRuntime("tether_route")
}
