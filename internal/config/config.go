package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Kind is what a node declares.
type Kind int

const (
	Resource Kind = iota
	DataSource
	Variable
	Local
	Output
	Provider
)

func (k Kind) String() string {
	switch k {
	case Resource:
		return "resource"
	case DataSource:
		return "data source"
	case Variable:
		return "variable"
	case Local:
		return "local value"
	case Output:
		return "output"
	case Provider:
		return "provider"
	}
	return "invalid"
}

// Config is a whole configuration.
type Config struct {
	// Nodes in declaration order. Addresses are unique.
	Nodes []*Node
	// Sources holds the text of every configuration file by name, so that
	// diagnostics can show excerpts.
	Sources map[string][]byte
}

// Node is one declaration.
type Node struct {
	Kind Kind
	// Addr is the node's address: `tether_file.a`, `data.tether_file.b`,
	// `var.x`, `local.y`, `output.z`, `provider.tether`.
	Addr string
	// Type and Name of a resource or data source (`tether_file`, `a`); Name
	// alone for the other kinds.
	Type string
	Name string
	// Provider is the local name of the provider a resource, data source
	// or provider block belongs to.
	Provider string
	// DeclRange is where the node is declared (its block header or
	// attribute name).
	DeclRange hcl.Range

	// Refs are the nodes the node's expressions refer to, each with where
	// the reference is written. The engine orders work from them.
	Refs []Ref
	// DependsOn are explicit dependencies (depends_on), for ordering that
	// the values cannot show.
	DependsOn []Ref

	// Sensitive is set on variables and outputs declared sensitive.
	Sensitive bool
	Lifecycle Lifecycle

	// Eval computes the node's value: a resource's or data source's
	// configuration object, a provider's configuration, a local's,
	// variable's or output's value. It is given the current values of the
	// nodes in Refs through scope: planned values (which may be unknown)
	// while planning, final values while applying. Resources are evaluated
	// against the schema the front-end was given.
	Eval func(scope Scope) (cty.Value, hcl.Diagnostics)
}

// Ref is a reference from one node to another.
type Ref struct {
	Addr  string
	Range hcl.Range
}

// Lifecycle holds a resource's lifecycle settings.
type Lifecycle struct {
	CreateBeforeDestroy bool
	PreventDestroy      bool
}

// Scope gives an evaluation the values of the nodes it refers to.
type Scope interface {
	// Value returns the current value of the node at addr, which must be
	// one of the evaluating node's Refs.
	Value(addr string) cty.Value
}

// ScopeFunc adapts a function to Scope.
type ScopeFunc func(addr string) cty.Value

func (f ScopeFunc) Value(addr string) cty.Value { return f(addr) }
