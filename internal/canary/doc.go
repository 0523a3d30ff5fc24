// Package canary looks for secrets where they must never be: in every
// file under a folder (a state folder with SQLite's WAL and journal
// files, saved plans) and in what a command printed. A secret is looked
// for as it is, upper- and lower-cased, and in the encodings a store
// could hide it in: hex and base64 (standard and URL alphabets, at every
// alignment), so that a value written encoded is found too.
//
// The secrets canaries of the HCL front-end (the testscript scenarios of
// cmd/tether) and of the Go SDK share it.
package canary
