// Package ui turns what Tether knows into text for people: plans as
// attribute diffs, apply progress, diagnostics with the source they point
// at, and stored values.
//
// The output follows Terraform's conventions, since that is what Tether's
// users read fluently. Nothing here decides anything; a rendering changes
// no state. Values marked sensitive are shown as "(sensitive value)" and
// their contents never reach the writer.
package ui
