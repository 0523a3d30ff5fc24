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
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

type fileResource struct{}

func (fileResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if p, ok := knownString(attr(config, "path")); ok && p == "" {
		diags = append(diags, attrError("path", "The path must not be empty."))
	}
	if s, ok := knownString(attr(config, "file_permission")); ok {
		if _, ok := parsePermission(s); !ok {
			diags = append(diags, attrError("file_permission", permissionDetail(s)))
		}
	}
	return diags
}

// parsePermission accepts three or four octal digits, as chmod does, and
// only the permission bits: setuid and friends are not a file's content.
func parsePermission(s string) (fs.FileMode, bool) {
	if len(s) < 3 || len(s) > 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o777 {
		return 0, false
	}
	return fs.FileMode(n), true
}

func permissionDetail(s string) string {
	return fmt.Sprintf("%q is not a file permission: expected three or four octal digits no greater than \"0777\", such as \"0644\".", s)
}

func formatPermission(m fs.FileMode) string {
	return fmt.Sprintf("%04o", uint32(m.Perm()))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func fileObject(path, content, perm, sha cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"path":            path,
		"content":         content,
		"file_permission": perm,
		"sha256":          sha,
		"id":              path,
	})
}

func (r fileResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg := req.Config
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	path := attr(cfg, "path")
	content := attr(cfg, "content")
	// A default rather than "keep whatever is there": removing
	// file_permission from the configuration puts the file back to 0644.
	perm := attr(cfg, "file_permission")
	if perm.IsNull() {
		perm = cty.StringVal(defaultFilePermission)
	}
	sha := cty.UnknownVal(cty.String)
	if s, ok := knownString(content); ok {
		sha = cty.StringVal(digest([]byte(s)))
	}
	resp := provider.PlanResponse{PlannedState: fileObject(path, content, perm, sha)}
	if !req.PriorState.IsNull() && changed(attr(req.PriorState, "path"), path) {
		resp.RequiresReplace = []cty.Path{cty.GetAttrPath("path")}
	}
	return resp
}

func (r fileResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if req.PlannedState.IsNull() {
		path, _ := knownString(attr(req.PriorState, "path"))
		if err := os.Remove(path); err != nil && !gone(err) {
			return provider.ApplyResponse{NewState: req.PriorState, Diagnostics: opError("Cannot delete file", fmt.Sprintf("deleting %q", path), err)}
		}
		return provider.ApplyResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}

	// What remains if the write fails: nothing for a create, the old file
	// (whatever the next refresh finds of it) for an update.
	failed := req.PriorState
	if failed.IsNull() {
		failed = cty.NullVal(req.PlannedState.Type())
	}
	path, ok1 := knownString(attr(req.PlannedState, "path"))
	content, ok2 := knownString(attr(req.PlannedState, "content"))
	permStr, ok3 := knownString(attr(req.PlannedState, "file_permission"))
	if !ok1 || !ok2 || !ok3 {
		return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Incomplete planned tether_file",
			Detail:   "path, content and file_permission must all be known when the file is written.",
		}}}
	}
	perm, ok := parsePermission(permStr)
	if !ok {
		return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{attrError("file_permission", permissionDetail(permStr))}}
	}
	if err := writeFile(path, []byte(content), perm); err != nil {
		return provider.ApplyResponse{NewState: failed, Diagnostics: opError("Cannot write file", fmt.Sprintf("writing %q", path), err)}
	}
	return provider.ApplyResponse{NewState: fileObject(
		cty.StringVal(path), cty.StringVal(content), cty.StringVal(permStr), cty.StringVal(digest([]byte(content))),
	)}
}

func writeFile(path string, data []byte, perm fs.FileMode) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	// WriteFile leaves an existing file's mode alone and new files are
	// subject to the umask; the configuration asked for exactly perm.
	return os.Chmod(path, perm)
}

// gone reports whether err means there is no file at the path, including
// when a parent directory has become a file.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

type fileOnDisk struct {
	content string
	sha     string
	perm    fs.FileMode
}

func readFile(path string) (fileOnDisk, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileOnDisk{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileOnDisk{}, err
	}
	if info.IsDir() {
		return fileOnDisk{}, fmt.Errorf("%s is a directory", path)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fileOnDisk{}, err
	}
	content := string(b)
	// cty strings must be UTF-8; an invalid byte shows up as U+FFFD, which
	// still differs from any configured content and so still plans an
	// update. sha256 stays the digest of the real bytes.
	if !utf8.Valid(b) {
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	return fileOnDisk{content: content, sha: digest(b), perm: info.Mode().Perm()}, nil
}

func (r fileResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	path, ok := knownString(attr(req.PriorState, "path"))
	if !ok {
		return provider.ReadResponse{NewState: req.PriorState}
	}
	f, err := readFile(path)
	if gone(err) {
		return provider.ReadResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	if err != nil {
		return provider.ReadResponse{NewState: req.PriorState, Diagnostics: opError("Cannot read file", fmt.Sprintf("reading %q", path), err)}
	}
	// Keep the configured spelling ("644" or "0644") while the bits match,
	// so that spelling alone never shows up as drift.
	permStr := formatPermission(f.perm)
	if prior, ok := knownString(attr(req.PriorState, "file_permission")); ok {
		if m, ok := parsePermission(prior); ok && m == f.perm {
			permStr = prior
		}
	}
	return provider.ReadResponse{
		NewState: fileObject(cty.StringVal(path), cty.StringVal(f.content), cty.StringVal(permStr), cty.StringVal(f.sha)),
		Private:  req.Private,
	}
}

func (r fileResource) importState(ctx context.Context, id string) provider.ImportResponse {
	f, err := readFile(id)
	if err != nil {
		return provider.ImportResponse{Diagnostics: opError("Cannot import file", fmt.Sprintf("importing %q", id), err)}
	}
	return provider.ImportResponse{Imported: []provider.ImportedResource{{
		TypeName: "tether_file",
		State:    fileObject(cty.StringVal(id), cty.StringVal(f.content), cty.StringVal(formatPermission(f.perm)), cty.StringVal(f.sha)),
	}}}
}

type fileDataSource struct{}

func (fileDataSource) validate(config cty.Value) hcl.Diagnostics {
	if p, ok := knownString(attr(config, "path")); ok && p == "" {
		return hcl.Diagnostics{attrError("path", "The path must not be empty.")}
	}
	return nil
}

func (fileDataSource) read(ctx context.Context, config cty.Value) provider.ReadDataResponse {
	pathVal := attr(config, "path")
	path, ok := knownString(pathVal)
	if !ok {
		// The engine waits for a known path before reading; should it not,
		// everything the file would tell is unknown too.
		return provider.ReadDataResponse{State: cty.ObjectVal(map[string]cty.Value{
			"path":    pathVal,
			"content": cty.UnknownVal(cty.String),
			"sha256":  cty.UnknownVal(cty.String),
			"id":      cty.UnknownVal(cty.String),
		})}
	}
	f, err := readFile(path)
	if err != nil {
		summary := fmt.Sprintf("Cannot read file %q", path)
		if gone(err) {
			summary = fmt.Sprintf("File %q does not exist", path)
		}
		return provider.ReadDataResponse{
			State: cty.NullVal(config.Type()),
			Diagnostics: hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  summary,
				Detail:   err.Error(),
				Extra:    pathExtra{cty.GetAttrPath("path")},
			}},
		}
	}
	return provider.ReadDataResponse{State: cty.ObjectVal(map[string]cty.Value{
		"path":    pathVal,
		"content": cty.StringVal(f.content),
		"sha256":  cty.StringVal(f.sha),
		"id":      pathVal,
	})}
}
