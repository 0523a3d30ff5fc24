// Package funcs is the library of built-in functions available to
// configuration expressions: every function of Terraform 1.11, with its
// parameters, results and errors, under its plain and core:: name, plus
// Tether's reference functions. The functions whose results depend on the
// run (timestamp, plantimestamp, uuid, bcrypt and the template functions
// that may call them) are layered over the rest for each evaluation.
//
// Files hold one family each: strings, collections, encoding, filesystem,
// crypto (hashes, uuid, bcrypt, rsadecrypt), network (cidr), datetime,
// conversion (types and sensitivity) and template.
package funcs
