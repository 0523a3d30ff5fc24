package engine

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/redact"
)

// The rule for derived values, in one place. Whatever a provider returns
// for an instance (a managed resource's plan, apply result, refresh or
// import, a data source's result, an ephemeral resource's result) is
// sensitive where
//
//   - its schema marks the attribute sensitive, or what was recorded with
//     the object (or the configuration at that path) is;
//   - it equals, contains or encodes (hex, base64, in any letter case) a
//     sensitive input of the same call or of its provider's
//     configuration; or
//   - it is an unkeyed digest (MD5, SHA-1, SHA-256, SHA-512, in hex or
//     base64) of one: anyone can hash guesses and compare.
//
// The forms are those package redact knows (redact.Whole). What the
// rule marks is sealed in state like any sensitive value, shown as
// "(sensitive value)" in every view, and left out of the [id=...] of
// progress lines. A value computed from a secret by a function of the
// configuration carries the secret's mark already; a provider-defined
// function's result carries the marks of its arguments, as cty gives it.

// returned marks v, an object a provider returned for in, by the rule for
// derived values; known are the paths already known to be sensitive.
func (in *instance) returned(n *node, v cty.Value, known []cty.Path) cty.Value {
	return markDerived(withMarks(n.schema.Block, v, known), in.sourcesFor(n))
}

// judgeBy sets the secrets what the provider returns for in is judged
// by: the sensitive strings of its configuration (unmarked, with the
// paths that were marked) and of its provider's. The provider's log gets
// the configuration's too, as it gets its provider's (see addSensitive):
// a provider that repeats an argument in a diagnostic also logs it
// (terraform-plugin-go logs every diagnostic at WARN).
func (in *instance) judgeBy(n *node, config cty.Value, paths []cty.Path) {
	own := sensitiveStrings(config, paths)
	for _, s := range own {
		logging.Redact(s, "(sensitive value)")
	}
	in.setSources(append(own, providerSecrets(in.provider(n))...))
	in.shareSecrets(n, own...)
}

// sourcesFor are the secrets in's returned values are judged by: those
// judgeBy set or, for an object with no configuration (one being
// destroyed), its provider's.
func (in *instance) sourcesFor(n *node) []string {
	if in.judged {
		return in.sources()
	}
	return providerSecrets(in.provider(n))
}

// shownID is the id a progress line shows for v, an object of n's type:
// none when the rule for derived values makes it sensitive.
func (in *instance) shownID(n *node, v cty.Value) string {
	id := idOf(v)
	if id == "" || n.schema == nil {
		return id
	}
	if a, ok := n.schema.Block.Attributes["id"]; ok && a.Sensitive {
		return ""
	}
	for _, p := range in.meta.Sensitive {
		if len(p) == 1 && p[0] == (cty.GetAttrStep{Name: "id"}) {
			return ""
		}
	}
	if sources := in.sourcesFor(n); len(sources) > 0 && redact.NewWhole(sources...).Holds(id) {
		return ""
	}
	return id
}

// markDerived marks as sensitive every string of v that holds one of
// secrets, whole or encoded, or a digest of one (see redact.Whole).
func markDerived(v cty.Value, secrets []string) cty.Value {
	if len(secrets) == 0 || v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return v
	}
	set := redact.NewWhole(secrets...)
	if set.Empty() {
		return v
	}
	out, _ := cty.Transform(v, func(_ cty.Path, leaf cty.Value) (cty.Value, error) {
		u, _ := leaf.Unmark()
		if u.Type() != cty.String || u.IsNull() || !u.IsKnown() || leaf.HasMark(marks.Sensitive) {
			return leaf, nil
		}
		if set.Holds(u.AsString()) {
			return leaf.Mark(marks.Sensitive), nil
		}
		return leaf, nil
	})
	return out
}
