package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/tetherhq/tether/internal/durable"
	"github.com/zclconf/go-cty/cty"
)

// LockFileName is the dependency lock file, in the configuration folder:
// the same file, in the same format, as Terraform's.
const LockFileName = ".terraform.lock.hcl"

// LockEntry is one provider block of the dependency lock file.
type LockEntry struct {
	Provider tfaddr.Provider
	// Version is the selected version, in normalized form ("0.14.2").
	Version string
	// Constraints are the constraints the configuration put on the provider
	// when the version was selected, normalized; "" when there were none.
	Constraints string
	// Hashes are the package checksums accepted for this version: "h1:"
	// hashes of unpacked packages and "zh:" SHA-256 sums of release zips,
	// sorted, without duplicates.
	Hashes []string
}

// Locks is the content of a dependency lock file, by provider.
type Locks map[tfaddr.Provider]*LockEntry

// ReadLocks reads the dependency lock file of dir. A missing file is an
// empty set of locks and no error. A file that does not parse, or whose
// blocks do not have the form Terraform writes (a fully qualified,
// normalized source address, a normalized version, a list of valid hashes),
// is an error that starts with file:line:col of the first problem. Blocks
// other than provider blocks (Terraform reserves "module") are ignored.
func ReadLocks(dir string) (Locks, error) {
	path := filepath.Join(dir, LockFileName)
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Locks{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the dependency lock file: %w", err)
	}
	return parseLocks(src, path)
}

func parseLocks(src []byte, filename string) (Locks, error) {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diagsError(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "provider", LabelNames: []string{"source_addr"}},
		{Type: "module", LabelNames: []string{"path"}},
	}})
	if diags.HasErrors() {
		return nil, diagsError(diags)
	}
	locks := Locks{}
	seen := map[tfaddr.Provider]hcl.Range{}
	for _, b := range content.Blocks {
		if b.Type != "provider" {
			continue
		}
		e, diags := decodeLockBlock(b)
		if diags.HasErrors() {
			return nil, diagsError(diags)
		}
		if prev, ok := seen[e.Provider]; ok {
			return nil, diagsError(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Duplicate provider lock",
				Detail:   fmt.Sprintf("This lock file already has a block for provider %s at %s.", e.Provider, prev),
				Subject:  b.TypeRange.Ptr(),
			}})
		}
		seen[e.Provider] = b.DefRange
		locks[e.Provider] = e
	}
	return locks, nil
}

func decodeLockBlock(b *hcl.Block) (*LockEntry, hcl.Diagnostics) {
	raw := b.Labels[0]
	addr, err := tfaddr.ParseProviderSource(raw)
	if err != nil || addr.String() != raw {
		detail := "The source address of a provider lock must be fully qualified and normalized, such as \"registry.terraform.io/hashicorp/time\"."
		if err == nil {
			detail = fmt.Sprintf("The source address of this provider lock must be written %q, fully qualified and normalized.", addr.String())
		}
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid provider source address",
			Detail:   detail,
			Subject:  b.LabelRanges[0].Ptr(),
		}}
	}
	content, diags := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "version", Required: true},
		{Name: "constraints"},
		{Name: "hashes"},
	}})
	if diags.HasErrors() {
		return nil, diags
	}
	e := &LockEntry{Provider: addr}
	a := content.Attributes["version"]
	v, diags := stringAttr(a)
	if diags.HasErrors() {
		return nil, diags
	}
	pv, err := version.NewSemver(v)
	if err != nil || pv.String() != v {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid provider version number",
			Detail:   fmt.Sprintf("The selected version of provider %s must be a normalized version number such as \"1.2.0\", not %q.", addr, v),
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	e.Version = v
	if a := content.Attributes["constraints"]; a != nil {
		c, diags := stringAttr(a)
		if diags.HasErrors() {
			return nil, diags
		}
		if _, err := parseConstraints(addr, []string{c}); err != nil {
			return nil, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider version constraints",
				Detail:   fmt.Sprintf("The recorded constraints of provider %s are invalid: %s.", addr, err),
				Subject:  a.Expr.Range().Ptr(),
			}}
		}
		e.Constraints = c
	}
	if a := content.Attributes["hashes"]; a != nil {
		exprs, diags := hcl.ExprList(a.Expr)
		if diags.HasErrors() {
			return nil, diags
		}
		if len(exprs) == 0 {
			return nil, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider hash set",
				Detail:   "The \"hashes\" argument must be omitted or list at least one hash.",
				Subject:  a.Expr.Range().Ptr(),
			}}
		}
		for _, x := range exprs {
			h, diags := stringAttr(&hcl.Attribute{Name: "hashes", Expr: x, Range: x.Range()})
			if diags.HasErrors() {
				return nil, diags
			}
			if !validHash(h) {
				return nil, hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Invalid provider hash string",
					Detail:   fmt.Sprintf("%q is not a provider hash: a hash is a scheme such as \"h1\" or \"zh\", a colon and the checksum.", h),
					Subject:  x.Range().Ptr(),
				}}
			}
			e.Hashes = append(e.Hashes, h)
		}
		e.Hashes = sortedUnique(e.Hashes)
	}
	return e, nil
}

// stringAttr evaluates a constant string argument.
func stringAttr(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return "", diags
	}
	if v.Type() != cty.String || v.IsNull() || !v.IsKnown() {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Incorrect value type",
			Detail:   fmt.Sprintf("The argument %q must be a string.", a.Name),
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	return v.AsString(), nil
}

// validHash reports whether s has the form SCHEME:VALUE that Terraform
// accepts in a lock file.
func validHash(s string) bool {
	scheme, val, ok := strings.Cut(s, ":")
	return ok && scheme != "" && val != "" && !strings.ContainsAny(scheme, " \t\n")
}

// Bytes is the lock file as Terraform writes it: two header comment lines,
// then one provider block per provider, sorted by source address, each with
// version, constraints (when there are some) and hashes (when there are
// some, sorted, one a line, with a trailing comma), formatted by hclwrite.
func (l Locks) Bytes() []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{
		{Type: hclsyntax.TokenComment, Bytes: []byte("# This file is maintained automatically by \"terraform init\".\n")},
		{Type: hclsyntax.TokenComment, Bytes: []byte("# Manual edits may be lost in future updates.\n")},
	})
	providers := make([]tfaddr.Provider, 0, len(l))
	for p := range l {
		providers = append(providers, p)
	}
	sort.Slice(providers, func(i, j int) bool { return providerLess(providers[i], providers[j]) })
	for _, p := range providers {
		e := l[p]
		body.AppendNewline()
		b := body.AppendNewBlock("provider", []string{p.String()}).Body()
		b.SetAttributeValue("version", cty.StringVal(e.Version))
		if e.Constraints != "" {
			b.SetAttributeValue("constraints", cty.StringVal(e.Constraints))
		}
		if hashes := sortedUnique(e.Hashes); len(hashes) > 0 {
			toks := hclwrite.Tokens{
				{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")},
				{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")},
			}
			for _, h := range hashes {
				toks = append(toks, hclwrite.TokensForValue(cty.StringVal(h))...)
				toks = append(toks,
					&hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")},
					&hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
			}
			toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
			b.SetAttributeRaw("hashes", toks)
		}
	}
	return f.Bytes()
}

// WriteLocks writes l to the dependency lock file of dir, replacing it
// atomically and durably (package durable), so a reader never sees half
// a file. An unchanged file is not rewritten.
func WriteLocks(dir string, l Locks) error {
	path := filepath.Join(dir, LockFileName)
	data := l.Bytes()
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return durable.WriteFile(path, data, 0o644)
}

// providerLess orders providers as Terraform does: by hostname, namespace,
// then type.
func providerLess(a, b tfaddr.Provider) bool {
	if a.Hostname != b.Hostname {
		return a.Hostname.String() < b.Hostname.String()
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Type < b.Type
}

func sortedUnique(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	n := 0
	for i, s := range out {
		if i > 0 && s == out[n-1] {
			continue
		}
		out[n] = s
		n++
	}
	return out[:n]
}

// diagsError turns the error diagnostics of a file into one Go error whose
// message starts with file:line:col of the first, as compilers write it.
func diagsError(diags hcl.Diagnostics) error {
	var lines []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject != nil {
			msg = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, msg)
		}
		lines = append(lines, msg)
	}
	return errors.New(strings.Join(lines, "\n"))
}
