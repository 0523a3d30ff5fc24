package engine

import (
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/redact"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// sealPrivate is how an object's private data is stored. Tether cannot
// read a provider's private data, and a provider may keep there anything
// it was given (a credential of its configuration, an argument), so the
// data is sealed whenever a secret is at hand: the object holds anything
// sensitive, its configuration a sensitive value or a reference, or its
// provider's configuration a reference. It must reach the provider again
// byte for byte, so it is sealed, never rewritten. Sealed stays sealed:
// data taken over from Terraform's state (see sealAdopted), or written
// while a secret was at hand, may still hold it. refs says that the
// data holds a value resolved from a reference, which `state pull` must
// not write (see exportInstance).
func (e *Engine) sealPrivate(in *instance, prov provider.Provider, priv []byte, sensitive bool) (stored []byte, refs bool) {
	if len(priv) == 0 || e.Keys == nil {
		return priv, false
	}
	var sets []*redact.Set
	if rp, ok := prov.(*redacting); ok && !rp.set.Empty() {
		sets = append(sets, rp.set)
	}
	if in.res != nil && !in.res.redact.Empty() {
		sets = append(sets, &in.res.redact)
	}
	wasSealed := in.recorded != nil && secrets.IsSealed(in.recorded.Private)
	if !sensitive && !wasSealed && len(in.secrets()) == 0 && len(sets) == 0 {
		return priv, false
	}
	for _, s := range sets {
		if s.String(string(priv)) != string(priv) {
			refs = true
			break
		}
	}
	return e.Keys.Seal(priv), refs
}

// sealAdopted is how private data taken over from Terraform's state (by
// init or state push) is stored: sealed whenever there is a key. Nothing
// says what the provider keeps there, and no configuration says whether a
// secret was at hand when it wrote it; the next apply of the object
// decides again, as for any provider result.
func sealAdopted(keys *secrets.Keys, priv []byte) []byte {
	if len(priv) == 0 || keys == nil {
		return priv
	}
	return keys.Seal(priv)
}

// openPrivate is an object's private data as its provider wrote it.
func (e *Engine) openPrivate(obj *state.Object) ([]byte, error) {
	return open(e.Keys, obj.Private)
}
