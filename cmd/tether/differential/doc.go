// Package differential holds the differential tests of the tether command
// against the real terraform 1.11 binary through Tether's built-in
// provider: the same configuration (testdata/diff and the other folders
// of testdata) applied, planned, tested and destroyed by both tools, and
// what they print, write and store compared. It also holds the real time
// and local providers' differential and the cases Terraform refuses that
// tether must converge on (TestUnknownCollections).
package differential
