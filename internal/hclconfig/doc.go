// Package hclconfig reads a folder of Terraform-language files (*.tf and
// *.tf.json, and OpenTofu's *.tofu and *.tofu.json, which hide the .tf file
// of the same name) into a config.Config: resources, data sources, variables (with
// values from -var, *.tfvars and TF_VAR_*), locals, outputs, provider blocks
// and depends_on, every node carrying its source range and the references
// its expressions make.
//
// Resource bodies are decoded against the provider's schema with hcldec, so
// an unknown argument or a wrong type is reported at its file:line:column;
// internal/hclconfig/schemabody reads them first as Terraform does (dynamic
// blocks at any depth, attributes written as blocks).
//
// Providers are named per module, as in Terraform: required_providers maps
// local names to source addresses (a name without an entry implies
// hashicorp/NAME, or Tether's built-in provider for "tether"), and every
// resource is bound to the address of one provider configuration
// (provider["registry.terraform.io/hashicorp/aws"].west): a provider block
// of the root or of a module called once, one passed by a module call's
// providers argument (an instance of a for_each configuration, with the key
// the call gives), or an implied empty default configuration. Requirements
// lists, before anything runs, the providers to install.
//
// OpenTofu's language additions are read too: lifecycle { enabled } (meta.go)
// and prevent_destroy or create_before_destroy from variables and locals
// known before planning (lifecycle_static.go).
package hclconfig
