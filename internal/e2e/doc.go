// Package e2e is what the end-to-end tests of the tether command share;
// the tests themselves live in the packages under cmd/tether, one subject
// each (scripts, providers, goscripts, goclosures, gomodules,
// differential, aws, platform, backends, synth, docs), so that go test
// runs them side by side.
//
// Main is every such package's TestMain: it registers the in-process
// `tether` command with testscript, so that a scenario's `exec tether`
// and a test running "tether" from the PATH run the test binary as the
// command, and stops the PostgreSQL cluster the tests share. Scripts and
// GoScripts are the TestScripts and TestGoScripts of the packages that
// hold scenarios (testdata/script, testdata/goscript), with the commands
// those use beyond testscript's own (exitcode, mirror, testprov, pgexec,
// the S3, HTTP, GCS, Azurite and AWS fakes ...) and their conditions.
//
// The rest are the tests' helpers:
//   - the differential harness: the tether command and the built-in
//     provider's plugin built once per run (BuildDiffTools, through
//     providertest.GoBuild), a Side that runs one of terraform and tether
//     on its own copy of a configuration, Both to run the two at once, and
//     the comparisons of what they did (ApplySummary, ReadTree,
//     CompareJSON ...);
//   - real providers (time, local) in a filesystem mirror both tools
//     install from (RealProviders, InitBoth), the shared PostgreSQL
//     cluster (PostgresServer, FreshSchema), the remote backends'
//     emulators for Terraform (StartS3Emulators, StartGCSForTerraform,
//     LockStore), and copies of the examples with what synth needs to run
//     them (CopyExample, SynthTools, EnvForExample).
//
// It is a test helper: it imports package testing, and nothing but tests
// imports it.
package e2e
