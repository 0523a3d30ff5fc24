// Package providers holds the tether command's scenarios with providers
// run as plugins (TestScripts, testdata/script): the test provider and the
// real time and local providers through the plugin protocol (their
// configuration, crashes, upgrades, deferrals, ephemeral and write-only
// values), their installation from mirrors and registries, lock files and
// dev_overrides. Run one with
// `go test ./cmd/tether/providers -run 'TestScripts/NAME$'`.
package providers
