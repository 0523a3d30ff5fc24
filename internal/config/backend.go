package config

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Backend is the root module's `terraform { backend "TYPE" { ... } }`
// block: where state is kept.
type Backend struct {
	// Type is "local" or "pg".
	Type string
	// Settings are the block's arguments, evaluated: strings as they are,
	// booleans as "true" or "false".
	Settings map[string]string
	// Ranges locate each setting's expression, for errors.
	Ranges map[string]hcl.Range
	// DeclRange is the block's header.
	DeclRange hcl.Range
}

// BackendArguments are the backend types Tether supports and the arguments
// each takes, with their types; the names are those of Terraform's local
// and pg backends.
var BackendArguments = map[string]map[string]cty.Type{
	"local": {"path": cty.String, "workspace_dir": cty.String},
	"pg":    {"conn_str": cty.String, "schema_name": cty.String, "skip_schema_creation": cty.Bool},
}

// BackendTypes lists the supported backend types, for messages.
func BackendTypes() string {
	var names []string
	for n := range BackendArguments {
		names = append(names, `"`+n+`"`)
	}
	sort.Strings(names)
	return strings.Join(names, " and ")
}
