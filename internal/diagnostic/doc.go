// Package diagnostic makes the hcl diagnostics Tether reports, in one
// vocabulary. A Summary is a fixed phrase naming the kind of problem; the
// specifics (names, values, what was being done) are in Detail, written as
// sentences; the address of the object a diagnostic is about is in its
// Extra, which the ui prints and Terraform's JSON diagnostics carry as
// "address"; a provider's diagnostic about one attribute keeps that
// attribute's path in its Extra too, and the ui prints it after the address
// (tether_function.worker.dir), since in a Go program the excerpt shows the
// constructor's line and not the argument; a Go error is wrapped in a
// sentence saying what failed; Subject is the tightest range at fault and
// Context the declaration around it.
package diagnostic
