// Package hclconfig reads a folder of Terraform-language files (*.tf and
// *.tf.json) into a config.Config: resources, data sources, variables (with
// values from -var, *.tfvars and TF_VAR_*), locals, outputs, provider blocks
// and depends_on, every node carrying its source range and the references
// its expressions make.
//
// Resource bodies are decoded against the provider's schema with hcldec, so
// an unknown argument or a wrong type is reported at its file:line:column.
package hclconfig
