package tether

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// bundleResource is a folder of files, each declared as a nested file
// block: the built-in resource with nested blocks, so that dynamic blocks
// have something real to generate.
type bundleResource struct{}

func bundleResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "A folder of files, each declared by a nested file block.",
		Attributes: map[string]*provider.Attribute{
			"dir": {
				Type:        cty.String,
				Required:    true,
				Description: "Folder the files are written in, relative to the working directory unless absolute. Changing it replaces the bundle.",
			},
			"sha256": {
				Type:        cty.String,
				Computed:    true,
				Description: "Hex-encoded SHA-256 digest over every file's path and content, in path order.",
			},
			"file_count": {
				Type:        cty.Number,
				Computed:    true,
				Description: "How many files the bundle holds.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "The folder, as given.",
			},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"file": {
				Nesting: provider.NestingList,
				Block: provider.Block{
					Description: "One file of the bundle.",
					Attributes: map[string]*provider.Attribute{
						"path": {
							Type:        cty.String,
							Required:    true,
							Description: "Path of the file inside the folder; it may not leave the folder.",
						},
						"content": {
							Type:        cty.String,
							Required:    true,
							Description: "Content of the file, written after its headers.",
						},
					},
					BlockTypes: map[string]*provider.NestedBlock{
						"header": {
							Nesting: provider.NestingMap,
							Block: provider.Block{
								Description: "A header line written at the top of the file as \"NAME: value\", in name order, followed by a blank line. The block label is the name.",
								Attributes: map[string]*provider.Attribute{
									"value": {
										Type:        cty.String,
										Required:    true,
										Description: "Value of the header.",
									},
								},
							},
						},
					},
				},
			},
		},
	}}
}

var bundleFileType = cty.Object(map[string]cty.Type{
	"path":    cty.String,
	"content": cty.String,
	"header":  cty.Map(cty.Object(map[string]cty.Type{"value": cty.String})),
})

func (bundleResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if d, ok := knownString(attr(config, "dir")); ok && d == "" {
		diags = append(diags, attrError("dir", "The folder must not be empty."))
	}
	files := attr(config, "file")
	if files.IsNull() || !files.IsKnown() {
		return diags
	}
	seen := map[string]bool{}
	for it := files.ElementIterator(); it.Next(); {
		_, f := it.Element()
		p, ok := knownString(attr(f, "path"))
		if !ok {
			continue
		}
		clean := filepath.Clean(p)
		switch {
		case p == "":
			diags = append(diags, attrError("file", "A file's path must not be empty."))
		case filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
			diags = append(diags, attrError("file", fmt.Sprintf("The file path %q leaves the bundle's folder; give a path inside it.", p)))
		case seen[clean]:
			diags = append(diags, attrError("file", fmt.Sprintf("Two file blocks have the path %q; each file of a bundle needs its own path.", p)))
		}
		seen[clean] = true
	}
	return diags
}

// bundleDigest hashes the files in path order, so that block order alone
// is not a change of content.
func bundleDigest(files map[string]string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "%d:%s%d:%s", len(p), p, len(files[p]), files[p])
	}
	return digest([]byte(b.String()))
}

// knownFiles returns the files of a bundle object when all of them are
// known.
func knownFiles(obj cty.Value) (map[string]string, bool) {
	files := attr(obj, "file")
	if !files.IsWhollyKnown() {
		return nil, false
	}
	out := map[string]string{}
	if files.IsNull() {
		return out, true
	}
	for it := files.ElementIterator(); it.Next(); {
		_, f := it.Element()
		p, _ := knownString(attr(f, "path"))
		c, _ := knownString(attr(f, "content"))
		out[p] = withHeaders(attr(f, "header"), c)
	}
	return out, true
}

// withHeaders puts a file's header lines before its content.
func withHeaders(headers cty.Value, content string) string {
	if headers.IsNull() || headers.LengthInt() == 0 {
		return content
	}
	var names []string
	values := map[string]string{}
	for it := headers.ElementIterator(); it.Next(); {
		k, h := it.Element()
		v, _ := knownString(attr(h, "value"))
		names = append(names, k.AsString())
		values[k.AsString()] = v
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %s\n", n, values[n])
	}
	b.WriteString("\n")
	b.WriteString(content)
	return b.String()
}

func bundleObject(dir, files cty.Value) cty.Value {
	obj := map[string]cty.Value{
		"dir":        dir,
		"file":       files,
		"id":         dir,
		"sha256":     cty.UnknownVal(cty.String),
		"file_count": cty.UnknownVal(cty.Number),
	}
	if files.IsNull() {
		obj["file"] = cty.ListValEmpty(bundleFileType)
	}
	if fs, ok := knownFiles(cty.ObjectVal(map[string]cty.Value{"file": obj["file"]})); ok {
		obj["sha256"] = cty.StringVal(bundleDigest(fs))
		obj["file_count"] = cty.NumberIntVal(int64(len(fs)))
	}
	return cty.ObjectVal(obj)
}

func (r bundleResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	if diags := r.validate(req.Config); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	dir := attr(req.Config, "dir")
	resp := provider.PlanResponse{PlannedState: bundleObject(dir, attr(req.Config, "file"))}
	if !req.PriorState.IsNull() && changed(attr(req.PriorState, "dir"), dir) {
		resp.RequiresReplace = []cty.Path{cty.GetAttrPath("dir")}
	}
	return resp
}

func (r bundleResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	var prior map[string]string
	var priorDir string
	if !req.PriorState.IsNull() {
		prior, _ = knownFiles(req.PriorState)
		priorDir, _ = knownString(attr(req.PriorState, "dir"))
	}
	if req.PlannedState.IsNull() {
		for p := range prior {
			if err := os.Remove(filepath.Join(priorDir, p)); err != nil && !gone(err) {
				return provider.ApplyResponse{NewState: req.PriorState, Diagnostics: opError("Cannot delete file", fmt.Sprintf("deleting %q", filepath.Join(priorDir, p)), err)}
			}
		}
		os.Remove(priorDir) // only when empty: other files may live there
		return provider.ApplyResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	failed := req.PriorState
	if failed.IsNull() {
		failed = cty.NullVal(req.PlannedState.Type())
	}
	dir, ok := knownString(attr(req.PlannedState, "dir"))
	files, ok2 := knownFiles(req.PlannedState)
	if !ok || !ok2 {
		return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Incomplete planned tether_bundle",
			Detail: "dir and every file's path and content must be known when the bundle is written.",
		}}}
	}
	for p := range prior {
		if _, keep := files[p]; !keep || priorDir != dir {
			if err := os.Remove(filepath.Join(priorDir, p)); err != nil && !gone(err) {
				return provider.ApplyResponse{NewState: failed, Diagnostics: opError("Cannot delete file", fmt.Sprintf("deleting %q", filepath.Join(priorDir, p)), err)}
			}
		}
	}
	for p, c := range files {
		if err := writeFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			return provider.ApplyResponse{NewState: failed, Diagnostics: opError("Cannot write file", fmt.Sprintf("writing %q", filepath.Join(dir, p)), err)}
		}
	}
	return provider.ApplyResponse{NewState: bundleObject(attr(req.PlannedState, "dir"), attr(req.PlannedState, "file"))}
}

// read reports the files as they are on disk: a file deleted or edited by
// hand is drift.
func (r bundleResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	dir, ok := knownString(attr(req.PriorState, "dir"))
	files := attr(req.PriorState, "file")
	if !ok || !files.IsWhollyKnown() || files.IsNull() {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
	}
	var now []cty.Value
	for it := files.ElementIterator(); it.Next(); {
		_, f := it.Element()
		p, _ := knownString(attr(f, "path"))
		onDisk, err := readFile(filepath.Join(dir, p))
		if gone(err) {
			continue
		}
		if err != nil {
			return provider.ReadResponse{NewState: req.PriorState, Diagnostics: opError("Cannot read file", fmt.Sprintf("reading %q", filepath.Join(dir, p)), err)}
		}
		// The headers are what the configuration said; whatever else the
		// file holds now counts as its content, so a hand edit shows up
		// as a change of content.
		headers := attr(f, "header")
		content := onDisk.content
		if prefix := withHeaders(headers, ""); prefix != "" && strings.HasPrefix(content, prefix) {
			content = content[len(prefix):]
		} else if prefix != "" {
			headers = cty.MapValEmpty(bundleFileType.AttributeType("header").ElementType())
		}
		now = append(now, cty.ObjectVal(map[string]cty.Value{"path": cty.StringVal(p), "content": cty.StringVal(content), "header": headers}))
	}
	list := cty.ListValEmpty(bundleFileType)
	if len(now) > 0 {
		list = cty.ListVal(now)
	}
	return provider.ReadResponse{NewState: bundleObject(attr(req.PriorState, "dir"), list), Private: req.Private}
}

func (bundleResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return provider.ImportResponse{Diagnostics: hcl.Diagnostics{{
		Severity: hcl.DiagError, Summary: "tether_bundle cannot be imported",
		Detail: "A folder does not say which of its files belong to the bundle; declare the bundle and let Tether write it.",
	}}}
}
