// Package statedoc is the one-document form of a Tether state that the
// object-store and HTTP backends keep where Terraform keeps its state, and
// Terraform's lock record, which they write so that Terraform and Tether
// exclude each other.
//
// The document is Tether's own format ("tether_state": 1): Terraform,
// finding it, refuses it as an unsupported state format rather than
// misreading it. Sniff tells it from Terraform's own state document.
package statedoc
