// Package builtinplugin lets every executable that holds the built-in
// provider (tether, terraform-provider-tether, a Go program built with the
// SDK) serve it to Terraform as a provider plugin, and says where Terraform
// finds such a plugin beside a configuration.
//
// An executable serves the plugin when its file name starts with
// terraform-provider-tether, the name Terraform looks for: `tether synth`
// copies the executable that runs it under that name into the output
// folder's terraform.d/plugins, a local mirror Terraform reads by itself,
// so that `terraform init` there needs neither the registry nor a CLI
// configuration. It knows nothing of configurations or of synth.
package builtinplugin
