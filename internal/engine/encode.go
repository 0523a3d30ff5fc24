package engine

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// State values are stored in Terraform's JSON encoding of the schema's
// implied type; sensitive paths in a small JSON form of their own.

type pathStep struct {
	Attr string          `json:"attr,omitempty"`
	Key  json.RawMessage `json:"key,omitempty"`
}

func encodePaths(paths []cty.Path) ([]byte, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	out := make([][]pathStep, 0, len(paths))
	for _, p := range paths {
		steps := make([]pathStep, 0, len(p))
		for _, s := range p {
			switch s := s.(type) {
			case cty.GetAttrStep:
				steps = append(steps, pathStep{Attr: s.Name})
			case cty.IndexStep:
				if !s.Key.IsKnown() || s.Key.IsNull() {
					return nil, fmt.Errorf("path with unknown key")
				}
				k, err := ctyjson.Marshal(s.Key, cty.DynamicPseudoType)
				if err != nil {
					return nil, err
				}
				steps = append(steps, pathStep{Key: k})
			}
		}
		out = append(out, steps)
	}
	return json.Marshal(out)
}

func decodePaths(b []byte) ([]cty.Path, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var raw [][]pathStep
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	paths := make([]cty.Path, 0, len(raw))
	for _, steps := range raw {
		var p cty.Path
		for _, s := range steps {
			if s.Key != nil {
				k, err := ctyjson.Unmarshal(s.Key, cty.DynamicPseudoType)
				if err != nil {
					return nil, err
				}
				p = append(p, cty.IndexStep{Key: k})
			} else {
				p = append(p, cty.GetAttrStep{Name: s.Attr})
			}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// encodeOutput stores an output value with its type.
func encodeOutput(v cty.Value) ([]byte, error) {
	return ctyjson.Marshal(v, cty.DynamicPseudoType)
}

func decodeOutput(keys *secrets.Keys, b []byte) (cty.Value, error) {
	b, err := open(keys, b)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(b, cty.DynamicPseudoType)
}

// RecordedOutput decodes a stored root output, opening it when sealed.
func RecordedOutput(keys *secrets.Keys, o *state.Output) (cty.Value, error) {
	return decodeOutput(keys, o.Value)
}

// idOf returns a short identification of an object for progress lines.
func idOf(v cty.Value) string {
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return ""
	}
	if _, ok := ctysame.AttrType(v.Type(), "id"); !ok {
		return ""
	}
	id := ctysame.Attr(v, "id")
	if id.IsNull() || !id.IsKnown() || id.IsMarked() {
		return ""
	}
	switch id.Type() {
	case cty.String:
		return id.AsString()
	case cty.Number:
		return id.AsBigFloat().Text('f', -1)
	}
	return ""
}

// RecordedValue decodes a stored object written by the current schema
// version, with its sensitive paths marked, for showing to people.
func RecordedValue(keys *secrets.Keys, obj *state.Object, rs *provider.ResourceSchema) (cty.Value, error) {
	raw, err := open(keys, obj.Value)
	if err != nil {
		return cty.NilVal, err
	}
	v, err := ctyjson.Unmarshal(raw, rs.Block.ImpliedType())
	if err != nil {
		return cty.NilVal, fmt.Errorf("recorded object does not match the schema of %s: %v", obj.Type, err)
	}
	meta, err := decodeMeta(obj.Sensitive)
	if err != nil {
		return cty.NilVal, fmt.Errorf("recorded sensitive paths are unreadable: %v", err)
	}
	return withMarks(rs.Block, v, meta.Sensitive), nil
}

var errNoKey = errors.New("this object is sealed and no state key is available: set TETHER_STATE_KEY or restore the key file named in the first run's output")
