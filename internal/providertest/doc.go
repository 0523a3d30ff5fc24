// Package providertest gives tests real Terraform providers and the places
// Terraform installs them from: builds of hashicorp/time 0.14.2 and
// hashicorp/local 1.4.1 made with `go install` from the Go module proxy
// and kept in a cache folder; filesystem mirrors in both layouts; and a
// provider registry and network mirror served over TLS on 127.0.0.1, with
// a SHA256SUMS signed by an OpenPGP key made for the test. AWSMirror finds
// a local mirror holding hashicorp/aws 5.100.0 when the machine has one.
// LambdaEmulator builds the AWS Lambda Runtime Interface Emulator the same
// way, for tests that run a function's bootstrap under it.
// GoBuild builds a command of this repository (tether,
// terraform-provider-tether) once per content of its sources, in the same
// cache folder, for the tests of every package that run it.
//
// It is a normal package so that tests of several packages can share it;
// only tests use it. Nothing in it sends traffic anywhere but 127.0.0.1
// (building a provider fetches modules through the go command's proxy).
package providertest
