// Package synth holds the tests of `tether synth`: the examples
// synthesised to Terraform JSON that terraform plans, initialises and
// applies as tether does.
package synth
