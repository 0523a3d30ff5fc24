package tfstate

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// pathStep is one step of an attribute path as Terraform writes it in
// sensitive_attributes: {"type":"get_attr","value":"content"} or
// {"type":"index","value":{"value":0,"type":"number"}}.
type pathStep struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// DecodePaths reads sensitive_attributes.
func DecodePaths(b json.RawMessage) ([]cty.Path, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var raw [][]pathStep
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("sensitive_attributes: %v", err)
	}
	paths := make([]cty.Path, 0, len(raw))
	for _, steps := range raw {
		var p cty.Path
		for _, s := range steps {
			switch s.Type {
			case "get_attr":
				var name string
				if err := json.Unmarshal(s.Value, &name); err != nil {
					return nil, fmt.Errorf("sensitive_attributes: attribute name %s: %v", s.Value, err)
				}
				p = append(p, cty.GetAttrStep{Name: name})
			case "index":
				k, err := ctyjson.Unmarshal(s.Value, cty.DynamicPseudoType)
				if err != nil {
					return nil, fmt.Errorf("sensitive_attributes: index %s: %v", s.Value, err)
				}
				p = append(p, cty.IndexStep{Key: k})
			default:
				return nil, fmt.Errorf("sensitive_attributes: unknown path step type %q", s.Type)
			}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// EncodePaths writes paths as sensitive_attributes; no paths is [], as
// Terraform writes it.
func EncodePaths(paths []cty.Path) (json.RawMessage, error) {
	out := make([][]pathStep, 0, len(paths))
	for _, p := range paths {
		steps := make([]pathStep, 0, len(p))
		for _, s := range p {
			switch s := s.(type) {
			case cty.GetAttrStep:
				v, _ := json.Marshal(s.Name)
				steps = append(steps, pathStep{Type: "get_attr", Value: v})
			case cty.IndexStep:
				if !s.Key.IsKnown() || s.Key.IsNull() {
					return nil, fmt.Errorf("a sensitive path has an unknown or null index")
				}
				v, err := ctyjson.Marshal(s.Key, cty.DynamicPseudoType)
				if err != nil {
					return nil, err
				}
				steps = append(steps, pathStep{Type: "index", Value: v})
			}
		}
		out = append(out, steps)
	}
	return json.Marshal(out)
}
