package config

import (
	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// ProviderRequirement is one provider a configuration needs: required in a
// required_providers block of the root or of any module, or implied by a
// resource type, data source or provider block that uses its local name.
type ProviderRequirement struct {
	Source tfaddr.Provider
	// Constraints are the version constraints put on it, as written, one
	// per module that states one; all of them must hold.
	Constraints []string
	// DeclRange is where it was first required or used.
	DeclRange hcl.Range
}

// BuiltinSource is the source address of Tether's built-in provider, which
// runs in process and is never installed. The local name "tether" implies
// it, as "aws" implies hashicorp/aws.
var BuiltinSource = tfaddr.MustParseProviderSource("tetherhq/tether")
