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

// TerraformSource is Terraform's built-in provider,
// terraform.io/builtin/terraform (terraform_data, terraform_remote_state),
// which Tether runs in process as Terraform does. The local name
// "terraform" implies it.
var TerraformSource = tfaddr.NewProvider(tfaddr.BuiltInProviderHost, tfaddr.BuiltInProviderNamespace, "terraform")

// InProcess reports whether a provider runs inside Tether rather than
// being installed: Tether's own, and Terraform's built-in providers
// (terraform.io/builtin/NAME; only "terraform" exists, and starting
// another is an error that names it). Neither is installed nor locked.
func InProcess(src tfaddr.Provider) bool {
	return src == BuiltinSource || src.IsBuiltIn()
}
