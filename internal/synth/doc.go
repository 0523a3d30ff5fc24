// Package synth writes a configuration (internal/config), made from *.tf
// files or by a Go program, as Terraform JSON: a main.tf.json per module
// that real Terraform plans and applies with the result Tether would.
//
// It reads only the configuration: each node writes itself in Terraform's
// language (config.Node.Terraform), with references by whole address, and
// synth places it in its module's file, makes its references relative,
// and passes values across modules through variables and outputs where a
// Go program's components refer to each other's resources (a Terraform
// module sees only its own). A call of a module of its own files (HCL,
// or tether.Module) is written as a module block with the same source, for
// Terraform to read that module itself. What cannot be written in Terraform's
// language is an error naming the node and the reason; nothing is left
// out silently.
package synth
