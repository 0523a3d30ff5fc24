// Package tfplugin5 holds the gRPC stubs of version 5 of the Terraform
// plugin protocol, copied from terraform-plugin-go (which keeps its own
// copy internal) and registered in registries of their own; see README.md
// in this folder for where they come from and how to refresh them.
package tfplugin5
