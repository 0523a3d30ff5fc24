package engine

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"hash"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/redact"
	"github.com/tetherhq/tether/internal/refs"
	"github.com/tetherhq/tether/internal/secrets"
)

// A reference in a resource's configuration is resolved here, in memory,
// right before each provider call, and never goes anywhere else: what the
// provider returns has the resolved value replaced by the reference's
// description before it is stored, shown or handed to dependents, and
// state keeps only a keyed hash of the value, so that a change of the
// value is still planned as an update.

// refRecord is what state keeps of one reference in an object.
type refRecord struct {
	Path cty.Path
	Hash string
	Desc string
	// Ref is the reference itself (where its value is, never the value),
	// so that an object no configuration describes any more (during a
	// destroy, or once its resource is removed) is read and deleted with
	// the value it was made with; nil in records written before it was
	// kept, or for a reference whose arguments cannot be recorded (see
	// refs.Encode).
	Ref *refs.Ref
	// Digests maps the keyed hash of each digest of the value (its MD5,
	// SHA-1, SHA-256 and SHA-512, hex and base64) to the label that stands
	// for it, "(sha256 of ...)": after the value changes, refresh still
	// recognises a digest of the old one that a provider returns, and
	// shows the label, never the digest, which anyone could match
	// against guesses.
	Digests map[string]string
}

// resolution is the references of one configuration, resolved.
type resolution struct {
	found  []refs.Found
	values []cty.Value
	hashes []string
	// digestHashes are, per reference, the keyed hashes of the digests
	// of its value, to the labels that stand for them (see refRecord).
	digestHashes []map[string]string
	// secrets are the resolved strings, to find echoes of them, and
	// secretRef the index into found of the reference each came from
	// (only strings long enough to look for are kept, so the two
	// indexes differ).
	secrets   []string
	secretRef []int
	// digests are common digests of those strings (hex and base64 of
	// MD5, SHA-1, SHA-256, SHA-512), mapped to what replaces them: a
	// provider that reports a checksum of a secret would otherwise store
	// a plain hash of it, which a short secret does not survive.
	digests map[string]string
	// redact finds the resolved strings in what a provider says, whole,
	// encoded, digested or in part.
	redact redact.Set
	// undigest maps each label back to its digest, so that an unchanged
	// value's digest recorded under its label reads as itself again.
	undigest map[string]undigested
}

type undigested struct {
	digest string
	ref    int // index into found
}

func (r *resolution) empty() bool { return r == nil || len(r.found) == 0 }

// resolveRefs resolves every reference placeholder in a configuration.
// A failure names the reference and the resource, never a value.
func (e *Engine) resolveRefs(ctx context.Context, address string, cn *config.Node, cfg cty.Value) (*resolution, hcl.Diagnostics) {
	return e.resolve(ctx, address, cn, refs.Find(cfg))
}

// resolveRecorded resolves the references recorded with an object, for
// the calls made about it when no configuration describes it: the
// refresh and delete of a destroy, or of a resource that left the
// configuration. Plan and up resolve those of the configuration; these
// are the same references as long as it has not changed, and the ones
// the object was made with when it has.
func (e *Engine) resolveRecorded(ctx context.Context, address string, cn *config.Node, recorded []refRecord) (*resolution, hcl.Diagnostics) {
	var found []refs.Found
	for _, rec := range recorded {
		if rec.Ref != nil {
			found = append(found, refs.Found{Path: rec.Path, Ref: rec.Ref})
		}
	}
	return e.resolve(ctx, address, cn, found)
}

// resolve resolves found references, for one resource instance.
func (e *Engine) resolve(ctx context.Context, address string, cn *config.Node, found []refs.Found) (*resolution, hcl.Diagnostics) {
	if len(found) == 0 {
		return nil, nil
	}
	res := &resolution{found: found}
	for _, f := range found {
		v, err := refs.Resolve(ctx, f.Ref)
		if err != nil {
			return nil, hcl.Diagnostics{errorDiag(address, cn, "Cannot resolve reference", diagnostic.Failed("resolving the reference", err))}
		}
		res.values = append(res.values, v)
		res.hashes = append(res.hashes, e.hash(v))
		digests := map[string]string{}
		if v.Type() == cty.String && !v.IsNull() && len(v.AsString()) >= 4 {
			res.secrets = append(res.secrets, v.AsString())
			res.secretRef = append(res.secretRef, len(res.values)-1)
			res.redact.Add(v.AsString(), f.Ref.Description())
			logging.Redact(v.AsString(), f.Ref.Description())
			res.addDigests(v.AsString(), f.Ref.Description(), len(res.values)-1)
			for text, label := range res.digests {
				if res.undigest[label].ref == len(res.values)-1 {
					if h := e.hash(cty.StringVal(text)); h != "" {
						digests[h] = label
					}
				}
			}
		}
		res.digestHashes = append(res.digestHashes, digests)
	}
	return res, nil
}

func (r *resolution) addDigests(secret, desc string, ref int) {
	if r.digests == nil {
		r.digests = map[string]string{}
		r.undigest = map[string]undigested{}
	}
	of := strings.TrimPrefix(desc, "(")
	for _, d := range digestsOf(secret) {
		label := "(" + d.name + " of " + of
		r.digests[d.text] = label
		r.undigest[label] = undigested{digest: d.text, ref: ref}
	}
}

// digest is one common digest of a secret, as text.
type digest struct {
	name string // "sha256", "sha256 base64"
	text string
}

// digestsOf lists the digests providers commonly compute of a value
// (MD5, SHA-1, SHA-256, SHA-512, in hex and base64): each gives the value
// away to anyone who hashes guesses.
func digestsOf(secret string) []digest {
	var out []digest
	for _, h := range []struct {
		name string
		h    hash.Hash
	}{{"md5", md5.New()}, {"sha1", sha1.New()}, {"sha256", sha256.New()}, {"sha512", sha512.New()}} {
		h.h.Write([]byte(secret))
		sum := h.h.Sum(nil)
		out = append(out,
			digest{h.name, hex.EncodeToString(sum)},
			digest{h.name + " base64", base64.StdEncoding.EncodeToString(sum)})
	}
	return out
}

func (e *Engine) hash(v cty.Value) string {
	b, err := ctyjson.Marshal(v, cty.DynamicPseudoType)
	if err != nil {
		return ""
	}
	if e.Keys == nil {
		// Without a key there is nothing to keep the hash secret with;
		// an empty hash means "unknown, plan an update".
		return ""
	}
	return e.Keys.Hash(b)
}

// substitute puts the resolved values into an (unmarked) configuration.
func (r *resolution) substitute(v cty.Value) cty.Value {
	if r.empty() {
		return v
	}
	out, _ := cty.Transform(v, func(p cty.Path, leaf cty.Value) (cty.Value, error) {
		for i, f := range r.found {
			if p.Equals(f.Path) {
				return r.values[i], nil
			}
		}
		return leaf, nil
	})
	return out
}

// priorFor makes the prior object the provider sees: where the recorded
// hash shows the referenced value has not changed, the description stored
// in its place stands for the current value, so the provider plans no
// change; otherwise the description stays and the provider plans an
// update. An echo of an unchanged value that scrub replaced elsewhere (a
// computed attribute that repeats an argument) gets the value back too,
// or the provider would plan to change it on every run.
func (r *resolution) priorFor(prior cty.Value, recorded []refRecord) cty.Value {
	if r.empty() || prior.IsNull() {
		return prior
	}
	unchanged := func(i int) bool {
		desc := r.found[i].Ref.Description()
		for _, rec := range recorded {
			if rec.Desc == desc && rec.Hash != "" && rec.Hash == r.hashes[i] {
				return true
			}
		}
		return false
	}
	out, _ := cty.Transform(prior, func(p cty.Path, leaf cty.Value) (cty.Value, error) {
		if leaf.Type() == cty.String && leaf.IsKnown() && !leaf.IsNull() {
			if u, ok := r.undigest[leaf.AsString()]; ok && unchanged(u.ref) {
				return cty.StringVal(u.digest), nil
			}
		}
		for i, f := range r.found {
			if !p.Equals(f.Path) {
				continue
			}
			for _, rec := range recorded {
				if rec.Path.Equals(p) && rec.Hash != "" && rec.Hash == r.hashes[i] && leaf.Type() == cty.String && leaf.IsKnown() && !leaf.IsNull() && leaf.AsString() == rec.Desc {
					return r.values[i], nil
				}
			}
			return leaf, nil
		}
		if leaf.Type() != cty.String || !leaf.IsKnown() || leaf.IsNull() || leaf.IsMarked() {
			return leaf, nil
		}
		s := leaf.AsString()
		for i, f := range r.found {
			v := r.values[i]
			desc := f.Ref.Description()
			if v.Type() != cty.String || v.IsNull() || len(v.AsString()) < 4 || !strings.Contains(s, desc) || !unchanged(i) {
				continue
			}
			s = strings.ReplaceAll(s, desc, v.AsString())
		}
		return cty.StringVal(s), nil
	})
	return out
}

// scrub replaces resolved values in what a provider returned with the
// references' descriptions: at the referenced paths, and wherever else a
// resolved string shows up. Values recorded by hash only (an older value
// of a reference, read back by refresh) are recognised by their hash.
func (e *Engine) scrub(v cty.Value, r *resolution, recorded []refRecord) cty.Value {
	if (r.empty() && len(recorded) == 0) || v.IsNull() || !v.IsKnown() {
		return v
	}
	out, _ := cty.Transform(v, func(p cty.Path, leaf cty.Value) (cty.Value, error) {
		if !r.empty() {
			for _, f := range r.found {
				if p.Equals(f.Path) && leaf.IsKnown() {
					return descriptionOf(f.Ref, leaf.Type()), nil
				}
			}
		}
		if leaf.Type() != cty.String || leaf.IsNull() || !leaf.IsKnown() {
			return leaf, nil
		}
		s := leaf.AsString()
		if len(recorded) > 0 && e.Keys != nil {
			h := e.hash(leaf)
			for _, rec := range recorded {
				if rec.Hash == h {
					return cty.StringVal(rec.Desc), nil
				}
				if label, ok := rec.Digests[h]; ok {
					return cty.StringVal(label), nil
				}
			}
		}
		if !r.empty() {
			if d, ok := r.digests[s]; ok {
				return cty.StringVal(d), nil
			}
			s = r.describeEchoes(s)
		}
		return cty.StringVal(s), nil
	})
	return out
}

// describeEchoes replaces each resolved string found in s with its
// reference's description, in one pass: where two resolved strings
// overlap (one holds the other, or they share a run), the whole
// overlapping stretch is replaced once, by the description of the
// longest, so that no remainder of either is left. Replacing one after
// another would leave the rest of a longer one that shares a prefix with
// a shorter one in clear.
func (r *resolution) describeEchoes(s string) string {
	type span struct{ start, end, ref int }
	var spans []span
	for i, secret := range r.secrets {
		for at := 0; ; {
			k := strings.Index(s[at:], secret)
			if k < 0 {
				break
			}
			spans = append(spans, span{at + k, at + k + len(secret), r.secretRef[i]})
			at += k + 1
		}
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	at := 0
	for i := 0; i < len(spans); {
		start, end, ref, longest := spans[i].start, spans[i].end, spans[i].ref, spans[i].end-spans[i].start
		for i++; i < len(spans) && spans[i].start < end; i++ {
			if n := spans[i].end - spans[i].start; n > longest {
				ref, longest = spans[i].ref, n
			}
			end = max(end, spans[i].end)
		}
		b.WriteString(s[at:start])
		b.WriteString(r.found[ref].Ref.Description())
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}

func descriptionOf(r *refs.Ref, ty cty.Type) cty.Value {
	if ty == cty.String {
		return cty.StringVal(r.Description())
	}
	return cty.NullVal(ty)
}

// remark marks the descriptions in a scrubbed value as the references they
// stand for, so that a dependent passing the attribute on whole passes the
// reference on, and one using it in an operation is refused.
func (r *resolution) remark(v cty.Value) cty.Value {
	if r.empty() || v.IsNull() || !v.IsKnown() {
		return v
	}
	var pvm []cty.PathValueMarks
	for _, f := range r.found {
		if leaf, err := f.Path.Apply(v); err == nil && leaf.Type() == cty.String {
			pvm = append(pvm, cty.PathValueMarks{Path: f.Path, Marks: cty.NewValueMarks(refs.Mark{Ref: f.Ref}, refs.Operand)})
		}
	}
	return v.MarkWithPaths(pvm)
}

// records is what state keeps of a resolution.
func (r *resolution) records() []refRecord {
	if r.empty() {
		return nil
	}
	out := make([]refRecord, len(r.found))
	for i, f := range r.found {
		out[i] = refRecord{Path: f.Path, Hash: r.hashes[i], Desc: f.Ref.Description(), Digests: r.digestHashes[i], Ref: f.Ref}
	}
	return out
}

// scrubDiags removes resolved values from what a provider said, whole,
// encoded, digested or in part, leaving the references' descriptions.
func (r *resolution) scrubDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	if r.empty() {
		return diags
	}
	return redactDiags(diags, &r.redact)
}

// redactDiags scrubs diagnostics with every set in one pass (see
// redact.Scrub: one set after another may leave part of a secret).
func redactDiags(diags hcl.Diagnostics, sets ...*redact.Set) hcl.Diagnostics {
	for _, d := range diags {
		d.Summary = redact.Scrub(d.Summary, sets...)
		d.Detail = redact.Scrub(d.Detail, sets...)
	}
	return diags
}

// addTo adds each resolved string to set, labelled with its reference's
// description.
func (r *resolution) addTo(set *redact.Set) {
	if r.empty() {
		return
	}
	for i, f := range r.found {
		if s := r.values[i]; s.Type() == cty.String && s.IsKnown() && !s.IsNull() {
			set.Add(s.AsString(), f.Ref.Description())
		}
	}
}

// objectMeta is the engine's own record kept with each object in
// state.Object.Sensitive: which paths are sensitive, and the references.
type objectMeta struct {
	Sensitive []cty.Path
	Refs      []refRecord
	// PrivateRefs is set when the provider's private data, sealed, holds
	// a value resolved from a reference: `state pull` then leaves it out
	// (see sealPrivate).
	PrivateRefs bool
}

type metaJSON struct {
	Sensitive   json.RawMessage `json:"sensitive,omitempty"`
	Refs        []refJSON       `json:"refs,omitempty"`
	PrivateRefs bool            `json:"private_refs,omitempty"`
	// ShownPrivate, written by earlier versions, was the private data
	// with each referenced value replaced by its description; it now
	// only says that the data holds one.
	ShownPrivate []byte `json:"shown_private,omitempty"`
}

type refJSON struct {
	Path    json.RawMessage   `json:"path"`
	Hash    string            `json:"hash"`
	Desc    string            `json:"desc"`
	Digests map[string]string `json:"digests,omitempty"`
	Ref     json.RawMessage   `json:"ref,omitempty"`
}

func encodeMeta(m objectMeta) ([]byte, error) {
	if len(m.Sensitive) == 0 && len(m.Refs) == 0 && !m.PrivateRefs {
		return nil, nil
	}
	out := metaJSON{PrivateRefs: m.PrivateRefs}
	var err error
	if out.Sensitive, err = encodePaths(m.Sensitive); err != nil {
		return nil, err
	}
	for _, r := range m.Refs {
		p, err := encodePaths([]cty.Path{r.Path})
		if err != nil {
			return nil, err
		}
		rj := refJSON{Path: p, Hash: r.Hash, Desc: r.Desc, Digests: r.Digests}
		if r.Ref != nil {
			if b, ok := refs.Encode(r.Ref); ok {
				rj.Ref = b
			}
		}
		out.Refs = append(out.Refs, rj)
	}
	return json.Marshal(out)
}

func decodeMeta(b []byte) (objectMeta, error) {
	var m objectMeta
	if len(b) == 0 {
		return m, nil
	}
	if b[0] == '[' {
		// Written before references existed: just the sensitive paths.
		p, err := decodePaths(b)
		m.Sensitive = p
		return m, err
	}
	var raw metaJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return m, err
	}
	p, err := decodePaths(raw.Sensitive)
	if err != nil {
		return m, err
	}
	m.Sensitive = p
	m.PrivateRefs = raw.PrivateRefs || raw.ShownPrivate != nil
	for _, r := range raw.Refs {
		ps, err := decodePaths(r.Path)
		if err != nil || len(ps) != 1 {
			continue
		}
		rec := refRecord{Path: ps[0], Hash: r.Hash, Desc: r.Desc, Digests: r.Digests}
		if len(r.Ref) > 0 {
			if rec.Ref, err = refs.Decode(r.Ref); err != nil {
				return m, err
			}
		}
		m.Refs = append(m.Refs, rec)
	}
	return m, nil
}

// seal encrypts a stored value when it holds anything sensitive.
func seal(keys *secrets.Keys, raw []byte, sensitive bool) []byte {
	if keys == nil || !sensitive {
		return raw
	}
	return keys.Seal(raw)
}

func open(keys *secrets.Keys, raw []byte) ([]byte, error) {
	if !secrets.IsSealed(raw) {
		return raw, nil
	}
	if keys == nil {
		return nil, errNoKey
	}
	return keys.Open(raw)
}

// scrubDiags removes from what a provider said about an instance every
// resolved reference (by its description) and every sensitive string of
// its configuration or a digest of one (by "(sensitive value)").
func (in *instance) scrubDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	if len(diags) == 0 {
		// Nearly every call: no set of secrets to build.
		return diags
	}
	var refs *redact.Set
	if !in.res.empty() {
		refs = &in.res.redact
	}
	return redactDiags(diags, refs, secretSet(in.secrets()))
}

// shareSecrets gives the provider instance that serves in the secrets of
// in's configuration (its sensitive strings and resolved references, and
// more), to
// be scrubbed from what the provider says together with its own: the
// provider's wrapper scrubs its diagnostics before in.scrubDiags does,
// and a setting of the provider sharing a run with one of in's secrets
// would otherwise take that run alone, leaving the rest of in's secret
// too short to be found. A secret is a secret wherever it appears:
// the provider's other instances have it scrubbed too.
func (in *instance) shareSecrets(n *node, more ...string) {
	rp, ok := in.provider(n).(*redacting)
	if !ok {
		return
	}
	for _, s := range append(more, in.secrets()...) {
		rp.also.Add(s, "(sensitive value)")
	}
	in.res.addTo(rp.also)
}

// scrubSecrets replaces every secret in the summaries and details of
// diagnostics, whole, encoded, digested or in part, with "(sensitive
// value)".
func scrubSecrets(diags hcl.Diagnostics, secrets []string) hcl.Diagnostics {
	if len(secrets) == 0 || len(diags) == 0 {
		return diags
	}
	return redactDiags(diags, secretSet(secrets))
}

// secretSet holds secrets, each to be replaced by "(sensitive value)".
func secretSet(secrets []string) *redact.Set {
	set := &redact.Set{}
	for _, s := range secrets {
		set.Add(s, "(sensitive value)")
	}
	return set
}
