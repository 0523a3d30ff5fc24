package engine

import (
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/redact"
	"github.com/tetherhq/tether/internal/state"
)

// sealPrivate is how an object's private data is stored. Tether cannot
// read a provider's private data, and a provider may keep there anything
// it was given (a credential of its configuration, an argument), so the
// data is sealed whenever a secret is at hand: the object holds anything
// sensitive, its configuration a sensitive value or a reference, or its
// provider's configuration a reference. It must reach the provider again
// byte for byte, so it is sealed, never rewritten. shown is what `state
// pull` writes in its place when the data holds a referenced value: each
// such value replaced by its reference's description, as in the
// attributes (Terraform's state holds sensitive values in clear text,
// never a referenced one).
func (e *Engine) sealPrivate(in *instance, prov provider.Provider, priv []byte, sensitive bool) (stored, shown []byte) {
	if len(priv) == 0 || e.Keys == nil {
		return priv, nil
	}
	var sets []*redact.Set
	if rp, ok := prov.(*redacting); ok && !rp.set.Empty() {
		sets = append(sets, rp.set)
	}
	if in.res != nil && !in.res.redact.Empty() {
		sets = append(sets, &in.res.redact)
	}
	if !sensitive && len(in.secrets) == 0 && len(sets) == 0 {
		return priv, nil
	}
	text := string(priv)
	for _, s := range sets {
		text = s.String(text)
	}
	if text != string(priv) {
		shown = []byte(text)
	}
	return e.Keys.Seal(priv), shown
}

// openPrivate is an object's private data as its provider wrote it.
func (e *Engine) openPrivate(obj *state.Object) ([]byte, error) {
	return open(e.Keys, obj.Private)
}
