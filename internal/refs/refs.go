package refs

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/redact"
)

// Ref is a reference: a kind and its arguments. An argument may itself be
// a reference, resolved first.
type Ref struct {
	Kind string
	Args []cty.Value
	// Type is the type of the value the reference resolves to.
	Type cty.Type
}

// Type is the cty type of reference values in configuration.
var Type = cty.CapsuleWithOps("reference", reflect.TypeOf(Ref{}), &cty.CapsuleOps{
	GoString:     func(v any) string { return describe(v.(*Ref)) },
	TypeGoString: func(reflect.Type) string { return "refs.Type" },
})

// describe breaks the initialization cycle between Type and Description.
var describe func(*Ref) string

func init() { describe = (*Ref).Description }

// Val wraps a reference as a configuration value.
func Val(r *Ref) cty.Value { return cty.CapsuleVal(Type, r) }

// FromValue returns the reference inside v, if v is one (marked or not).
func FromValue(v cty.Value) (*Ref, bool) {
	v, _ = v.Unmark()
	if v.Type() != Type || v.IsNull() || !v.IsKnown() {
		return nil, false
	}
	return v.EncapsulatedValue().(*Ref), true
}

// Mark is carried by the placeholder that stands for a reference in a
// resource's configuration.
type Mark struct{ Ref *Ref }

// Description is how a reference is shown everywhere a value would be:
// plans, state, logs, errors. It never contains a resolved value.
func (r *Ref) Description() string {
	var b strings.Builder
	r.describe(&b, nil)
	return b.String()
}

// label names one member of a reference cycle: its kind and its plain
// arguments (the reference arguments are the cycle itself).
func (r *Ref) label() string {
	parts := []string{r.Kind}
	for _, a := range r.Args {
		if _, ok := FromValue(a); ok {
			continue
		}
		if a, _ := a.Unmark(); a.Type() == cty.String && a.IsKnown() && !a.IsNull() {
			parts = append(parts, a.AsString())
		}
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// describe writes the description; path guards against a reference that
// contains itself, which would otherwise describe forever.
func (r *Ref) describe(b *strings.Builder, path []*Ref) {
	for _, p := range path {
		if p == r {
			b.WriteString("(reference " + r.Kind + " ...)")
			return
		}
	}
	path = append(path, r)
	b.WriteString("(reference ")
	b.WriteString(r.Kind)
	for _, a := range r.Args {
		b.WriteByte(' ')
		if inner, ok := FromValue(a); ok {
			inner.describe(b, path)
			continue
		}
		a, _ = a.Unmark()
		switch {
		case !a.IsKnown():
			b.WriteString("(unknown)")
		case a.IsNull():
			b.WriteString("null")
		case a.Type() == cty.String:
			b.WriteString(a.AsString())
		case a.Type() == cty.Number:
			b.WriteString(a.AsBigFloat().Text('f', -1))
		case a.Type() == cty.Bool:
			fmt.Fprint(b, a.True())
		default:
			b.WriteString(a.Type().FriendlyName())
		}
	}
	b.WriteByte(')')
}

// Resolver resolves one kind of reference from its arguments, which are
// already resolved.
type Resolver func(ctx context.Context, args []cty.Value) (cty.Value, error)

type kind struct {
	typ     cty.Type
	resolve Resolver
}

var (
	registryMu sync.RWMutex
	registry   = map[string]kind{}
)

// Register makes a reference kind known by name. The built-in kinds are
// env and file; Go programs register their own.
func Register(name string, typ cty.Type, resolve Resolver) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = kind{typ: typ, resolve: resolve}
}

// Kinds lists the registered kinds.
func Kinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// New makes a reference of a registered kind, checking that the kind
// exists.
func New(name string, args ...cty.Value) (*Ref, error) {
	registryMu.RLock()
	k, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no reference kind named %q is registered (known kinds: %s); register it with refs.Register, or tether.RegisterReference from Go", name, strings.Join(Kinds(), ", "))
	}
	return &Ref{Kind: name, Args: args, Type: k.typ}, nil
}

// Resolve obtains a reference's value, resolving its arguments first. A
// reference that, through its arguments, contains itself is an error that
// lists the members of the cycle.
func Resolve(ctx context.Context, r *Ref) (cty.Value, error) {
	return resolve(ctx, r, nil)
}

func resolve(ctx context.Context, r *Ref, path []*Ref) (cty.Value, error) {
	for i, p := range path {
		if p == r {
			var names []string
			for _, m := range append(path[i:], r) {
				names = append(names, m.label())
			}
			return cty.NilVal, fmt.Errorf("reference cycle: %s", strings.Join(names, " -> "))
		}
	}
	path = append(path, r)
	registryMu.RLock()
	k, ok := registry[r.Kind]
	registryMu.RUnlock()
	if !ok {
		return cty.NilVal, fmt.Errorf("%s: no reference kind named %q is registered", r.Description(), r.Kind)
	}
	args := make([]cty.Value, len(r.Args))
	// inner holds the values of the references among the arguments, which
	// the kind's error may quote (permission denied for token "..."):
	// each is replaced there by its reference's description.
	var inner redact.Set
	for i, a := range r.Args {
		if in, ok := FromValue(a); ok {
			v, err := resolve(ctx, in, path)
			if err != nil {
				return cty.NilVal, err
			}
			args[i] = v
			addStrings(&inner, v, in.Description())
			continue
		}
		args[i], _ = a.Unmark()
	}
	v, err := k.resolve(ctx, args)
	if err != nil {
		err = fmt.Errorf("%s: %w", r.Description(), err)
		if msg := inner.String(err.Error()); msg != err.Error() {
			err = &scrubbedError{msg: msg, err: err}
		}
		return cty.NilVal, err
	}
	return v, nil
}

// addStrings adds the strings in v (a string, or the fields of an
// object) to set, to be replaced by desc.
func addStrings(set *redact.Set, v cty.Value, desc string) {
	v, _ = v.UnmarkDeep()
	switch {
	case v.IsNull() || !v.IsKnown():
	case v.Type() == cty.String:
		set.Add(v.AsString(), desc)
	case v.Type().IsObjectType() || v.Type().IsMapType() || v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			addStrings(set, e, desc)
		}
	}
}

// scrubbedError is a kind's error with the values of the references it
// was given replaced: Error is the scrubbed text, and errors.Is still
// finds the cause (a cancelled context).
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

func init() {
	Register("env", cty.String, func(_ context.Context, args []cty.Value) (cty.Value, error) {
		name, err := stringArg(args, 0, "the environment variable's name")
		if err != nil {
			return cty.NilVal, err
		}
		// An empty value is almost always a variable that was meant to be
		// set and was not; resolving it to "" would write an empty secret.
		v := os.Getenv(name)
		if v == "" {
			return cty.NilVal, fmt.Errorf("environment variable %s is not set (or is empty)", name)
		}
		return cty.StringVal(v), nil
	})
	Register("file", cty.String, func(_ context.Context, args []cty.Value) (cty.Value, error) {
		path, err := stringArg(args, 0, "the file's path")
		if err != nil {
			return cty.NilVal, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return cty.NilVal, fmt.Errorf("cannot read %s: %v", path, err)
		}
		return cty.StringVal(strings.TrimRight(string(b), "\n")), nil
	})
	Register("field", cty.DynamicPseudoType, func(_ context.Context, args []cty.Value) (cty.Value, error) {
		if len(args) != 2 || args[1].Type() != cty.String {
			return cty.NilVal, fmt.Errorf("a field reference takes a reference and a field name")
		}
		obj, name := args[0], args[1].AsString()
		if !obj.Type().IsObjectType() || !obj.Type().HasAttribute(name) {
			return cty.NilVal, fmt.Errorf("the referenced value has no field %q", name)
		}
		return obj.GetAttr(name), nil
	})
}

func stringArg(args []cty.Value, i int, what string) (string, error) {
	if i >= len(args) || args[i].Type() != cty.String || args[i].IsNull() || !args[i].IsKnown() {
		return "", fmt.Errorf("%s must be a string", what)
	}
	return args[i].AsString(), nil
}

// Field is a reference to one field of the value another reference
// resolves to: how a reference to a struct is passed where the struct is
// expected.
func Field(r *Ref, name string, typ cty.Type) *Ref {
	return &Ref{Kind: "field", Args: []cty.Value{Val(r), cty.StringVal(name)}, Type: typ}
}
