// Package planfile reads and writes saved plans, the files `tether plan
// -out` writes and `tether up FILE` applies.
//
// A saved plan records what it was made from: a keyed digest of state, of
// every configuration file, and of the plan itself, with the variables
// and options it was made with, so that applying it can refuse when
// anything moved since. Everything but a small header is sealed with the
// state's key: the variables may be secret, and so may the values in the
// plan's JSON representation, which the file carries for `tether show`.
package planfile
