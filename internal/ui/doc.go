// Package ui renders Tether's plans, apply progress, diagnostics and
// stored values as text for people to read.
//
// The formats follow Terraform's, which Tether's users already read
// fluently. Values marked sensitive (see package marks) are written as
// "(sensitive value)"; nothing of them, not even their length, reaches
// the writer.
package ui
