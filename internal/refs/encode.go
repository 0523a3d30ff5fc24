package refs

import (
	"encoding/json"
	"fmt"

	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// A reference is recorded with the object it was resolved for (by the
// engine, in state), so that the object can be read back and destroyed
// with the value it was made with even when the configuration no longer
// says where to find it. What is recorded is where the value is (a kind
// and its arguments, what Description shows), never the value.

// refJSON is a reference as Encode writes it.
type refJSON struct {
	Kind string          `json:"kind"`
	Type json.RawMessage `json:"type"`
	Args []argJSON       `json:"args,omitempty"`
}

// argJSON is one argument: a reference, or a value with its type.
type argJSON struct {
	Ref   *refJSON        `json:"ref,omitempty"`
	Type  json.RawMessage `json:"type,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Encode writes r as JSON, for Decode to read back. ok is false when an
// argument cannot be recorded without giving something away or losing
// it: a marked (sensitive) or unknown one.
func Encode(r *Ref) (b []byte, ok bool) {
	j, ok := encode(r, nil)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(j)
	return b, err == nil
}

func encode(r *Ref, path []*Ref) (*refJSON, bool) {
	for _, p := range path {
		if p == r {
			return nil, false
		}
	}
	path = append(path, r)
	ty, err := ctyjson.MarshalType(r.Type)
	if err != nil {
		return nil, false
	}
	out := &refJSON{Kind: r.Kind, Type: ty}
	for _, a := range r.Args {
		if inner, ok := FromValue(a); ok {
			j, ok := encode(inner, path)
			if !ok {
				return nil, false
			}
			out.Args = append(out.Args, argJSON{Ref: j})
			continue
		}
		if a.IsMarked() || !a.IsWhollyKnown() || a.ContainsMarked() {
			return nil, false
		}
		ty, err := ctyjson.MarshalType(a.Type())
		if err != nil {
			return nil, false
		}
		v, err := ctyjson.Marshal(a, a.Type())
		if err != nil {
			return nil, false
		}
		out.Args = append(out.Args, argJSON{Type: ty, Value: v})
	}
	return out, true
}

// Decode reads a reference Encode wrote. Its kind need not be registered
// yet: Resolve says so when it is not.
func Decode(b []byte) (*Ref, error) {
	var j refJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("the recorded reference is unreadable: %w", err)
	}
	return decode(&j)
}

func decode(j *refJSON) (*Ref, error) {
	ty, err := ctyjson.UnmarshalType(j.Type)
	if err != nil {
		return nil, fmt.Errorf("the recorded reference %s has an unreadable type: %w", j.Kind, err)
	}
	r := &Ref{Kind: j.Kind, Type: ty}
	for _, a := range j.Args {
		if a.Ref != nil {
			inner, err := decode(a.Ref)
			if err != nil {
				return nil, err
			}
			r.Args = append(r.Args, Val(inner))
			continue
		}
		ty, err := ctyjson.UnmarshalType(a.Type)
		if err != nil {
			return nil, fmt.Errorf("the recorded reference %s has an argument of unreadable type: %w", j.Kind, err)
		}
		v, err := ctyjson.Unmarshal(a.Value, ty)
		if err != nil {
			return nil, fmt.Errorf("the recorded reference %s has an unreadable argument: %w", j.Kind, err)
		}
		r.Args = append(r.Args, v)
	}
	return r, nil
}
