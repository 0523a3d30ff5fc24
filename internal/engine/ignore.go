package engine

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// ignoreChanges puts the prior values back into a configuration where the
// lifecycle says to ignore changes, by Terraform's rules: a path that
// ends in a string index names a key of a map, which is kept, added or
// removed as in the prior map; any other value the path ends at, an
// object indexed by a string included, is taken whole from the prior
// object. Nothing is ignored on create (prior null).
func ignoreChanges(lc config.Lifecycle, block *provider.Block, prior, cfg cty.Value) cty.Value {
	if prior.IsNull() || cfg.IsNull() {
		return cfg
	}
	if lc.IgnoreAllChanges {
		if block == nil {
			return prior
		}
		// What the provider alone sets, at any depth, is not
		// configuration: it is null in the configuration sent.
		out, _ := cty.Transform(prior, func(p cty.Path, v cty.Value) (cty.Value, error) {
			if a := block.AttributeByPath(p); a != nil && a.Computed && !a.Optional {
				return cty.NullVal(v.Type()), nil
			}
			return v, nil
		})
		return out
	}
	// ignored is a value to keep at a path: the whole value, or the
	// element key of a map there.
	type ignored struct {
		path  cty.Path
		value cty.Value
		key   cty.Value
	}
	var keep []ignored
	for _, path := range lc.IgnoreChanges {
		if len(path) == 0 {
			continue
		}
		key := cty.NullVal(cty.String)
		if last, ok := path[len(path)-1].(cty.IndexStep); ok && last.Key.Type() == cty.String {
			path, key = path[:len(path)-1], last.Key
		}
		pv, err := path.Apply(prior)
		if err != nil {
			continue
		}
		cv, err := path.Apply(cfg)
		if err != nil {
			continue
		}
		// Compared whole, even for one key of a map: an unchanged key
		// is put back as it was.
		if !pv.RawEquals(cv) {
			keep = append(keep, ignored{path: path, value: pv, key: key})
		}
	}
	if len(keep) == 0 {
		return cfg
	}
	out, _ := cty.Transform(cfg, func(p cty.Path, v cty.Value) (cty.Value, error) {
		if !v.Type().IsMapType() {
			for _, ig := range keep {
				if p.Equals(ig.path) {
					return ig.value, nil
				}
			}
			return v, nil
		}
		if !v.IsNull() && !v.IsKnown() {
			// Keys of an unknown map cannot be kept one by one.
			return v, nil
		}
		v, vMarks := v.Unmark()
		elems := map[string]cty.Value{}
		if !v.IsNull() && v.LengthInt() > 0 {
			elems = v.AsValueMap()
		}
		for _, ig := range keep {
			if !p.Equals(ig.path) {
				continue
			}
			if ig.key.IsNull() {
				return ig.value, nil
			}
			pm, _ := ig.value.Unmark()
			priorElems := map[string]cty.Value{}
			if !pm.IsNull() && pm.IsKnown() && pm.LengthInt() > 0 {
				priorElems = pm.AsValueMap()
			}
			k := ig.key.AsString()
			if pe, ok := priorElems[k]; ok {
				elems[k] = pe
			} else {
				// Absent before, absent still.
				delete(elems, k)
			}
		}
		switch {
		case len(elems) > 0:
			return cty.MapVal(elems).WithMarks(vMarks), nil
		case v.IsNull():
			return v.WithMarks(vMarks), nil
		}
		return cty.MapValEmpty(v.Type().ElementType()).WithMarks(vMarks), nil
	})
	return out
}
