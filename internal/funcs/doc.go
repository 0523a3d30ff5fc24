// Package funcs is the library of built-in functions available to
// configuration expressions: go-cty's standard library under Terraform's
// names, plus the file, path, hashing and encoding functions Terraform users
// expect.
package funcs
