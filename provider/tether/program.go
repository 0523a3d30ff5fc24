package tether

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// programResource is a copy of the executable the provider runs in: the
// tether command, terraform-provider-tether, or a Go program built with the
// SDK. A Go program deploys its closures as functions that run this copy,
// because the original may not outlive the deployment: `go run` deletes its
// binary when it exits, and `tether up -C DIR` rebuilds the same file in
// place. The copy changes only when the executable's content does.
type programResource struct{ rt *runtimeConfig }

func programResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "A copy of the executable that runs the provider (tether, terraform-provider-tether, or a Go program built with the SDK), kept in the runtime folder so that functions started from it keep working when the original is rebuilt or deleted. A new build of the executable replaces the copy, which restarts the functions that run it. The Go SDK declares one for the closures it deploys.",
		Attributes: map[string]*provider.Attribute{
			"sha256": {
				Type:        cty.String,
				Computed:    true,
				Description: "SHA-256 of the executable, in hex. A different executable at the next plan replaces the copy.",
			},
			"path": {
				Type:        cty.String,
				Computed:    true,
				Description: "Absolute path of the copy, for a tether_function's command.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "Random identifier assigned at creation; also the name of the copy's folder in the runtime folder.",
			},
			"source": {
				Type:        cty.String,
				Optional:    true,
				Description: "Path of the executable to copy instead of the one running the provider, relative to the working folder: `tether synth` writes a Go program beside the Terraform JSON and names it here, so that Terraform's provider runs the program's closures.",
			},
		},
	}}
}

func programObject(sum, path, id, source cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"sha256": sum, "path": path, "id": id, "source": source})
}

// programSource is the executable a program resource copies: its source,
// or this process's own.
func programSource(config cty.Value) (string, string, error) {
	src, ok := knownString(attr(config, "source"))
	if !ok || src == "" {
		return selfDigest()
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", "", err
	}
	sum, err := fileDigest(abs)
	return abs, sum, err
}

func (programResource) validate(cty.Value) hcl.Diagnostics { return nil }

func (r programResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	source := attr(req.ProposedNewState, "source")
	if !source.IsKnown() {
		return provider.PlanResponse{PlannedState: programObject(cty.UnknownVal(cty.String), cty.UnknownVal(cty.String), cty.UnknownVal(cty.String), source)}
	}
	_, sum, err := programSource(req.ProposedNewState)
	if err != nil {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: opError("Cannot read the program's executable", "", err)}
	}
	prior := req.PriorState
	current := cty.StringVal(sum)
	if !prior.IsNull() && !changed(attr(prior, "sha256"), current) {
		return provider.PlanResponse{PlannedState: programObject(current, attr(prior, "path"), attr(prior, "id"), source), PlannedPrivate: req.PriorPrivate}
	}
	resp := provider.PlanResponse{PlannedState: programObject(current, cty.UnknownVal(cty.String), cty.UnknownVal(cty.String), source)}
	if !prior.IsNull() {
		resp.RequiresReplace = []cty.Path{cty.GetAttrPath("sha256")}
	}
	return resp
}

func (r programResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned, prior := req.PlannedState, req.PriorState
	if planned.IsNull() {
		inst := decodeInstance(req.PlannedPrivate)
		if err := removeInstanceDir(inst.Dir); err != nil {
			return provider.ApplyResponse{NewState: prior, Private: req.PlannedPrivate, Diagnostics: opError("Cannot remove the program's copy", "", err)}
		}
		return provider.ApplyResponse{NewState: cty.NullVal(prior.Type())}
	}
	if attr(planned, "path").IsKnown() {
		return provider.ApplyResponse{NewState: planned, Private: req.PlannedPrivate}
	}
	fail := func(summary string, err error) provider.ApplyResponse {
		return provider.ApplyResponse{NewState: cty.NullVal(planned.Type()), Diagnostics: opError(summary, "", err)}
	}
	want, _ := knownString(attr(planned, "sha256"))
	exe, _, err := programSource(planned)
	if err != nil {
		return fail("Cannot read the program's executable", err)
	}
	id := newID()
	dir, err := r.rt.instanceDir(id)
	if err != nil {
		return fail("Cannot place the program's copy", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail("Cannot create the program's folder", err)
	}
	path := filepath.Join(dir, filepath.Base(exe))
	got, err := copyExecutable(exe, path)
	if err == nil && want != "" && got != want {
		// Rebuilt between plan and apply: what was planned is gone.
		err = fmt.Errorf("%s changed since the plan (its SHA-256 is now %s, not %s); run up again", exe, got, want)
	}
	if err != nil {
		removeInstanceDir(dir)
		return fail("Cannot copy this program's executable", err)
	}
	return provider.ApplyResponse{
		NewState: programObject(cty.StringVal(got), cty.StringVal(path), cty.StringVal(id), attr(planned, "source")),
		Private:  instanceState{Dir: dir}.encode(),
	}
}

// read reports a copy that is gone, or is no longer what was copied, as
// deleted, so that the next up copies the executable again.
func (programResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	path, ok := knownString(attr(req.PriorState, "path"))
	if !ok {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
	}
	want, _ := knownString(attr(req.PriorState, "sha256"))
	if sum, err := fileDigest(path); err != nil || sum != want {
		return provider.ReadResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (programResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importUnsupported("tether_program")
}

// digests remembers the SHA-256 of files by path, size and modification
// time: a Go program's executable is tens of megabytes, and plan, apply
// and refresh each want its digest.
var digests = struct {
	sync.Mutex
	m map[string]digestEntry
}{m: map[string]digestEntry{}}

type digestEntry struct {
	size int64
	mod  time.Time
	sum  string
}

// selfDigest returns this process's executable and its SHA-256.
func selfDigest() (string, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", err
	}
	sum, err := fileDigest(exe)
	return exe, sum, err
}

func fileDigest(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	digests.Lock()
	e, ok := digests.m[path]
	digests.Unlock()
	if ok && e.size == info.Size() && e.mod.Equal(info.ModTime()) {
		return e.sum, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	digests.Lock()
	digests.m[path] = digestEntry{size: info.Size(), mod: info.ModTime(), sum: sum}
	digests.Unlock()
	return sum, nil
}

// copyExecutable copies src to dst (mode 0700, replaced atomically) and
// returns the SHA-256 of what it copied.
func copyExecutable(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, cerr := io.Copy(io.MultiWriter(tmp, h), in)
	err = errors.Join(cerr, tmp.Close(), os.Chmod(tmp.Name(), 0o700))
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s disappeared while it was copied: %w", src, err)
		}
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
