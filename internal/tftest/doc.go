// Package tftest runs Terraform's test files (*.tftest.hcl and
// *.tftest.json, in a configuration folder and its tests folder) as
// `terraform test` 1.11 does: each file's run blocks in order against a
// state of the file's own, each planning or applying the configuration
// (or a run's own local module) with the file's and the run's variables,
// then checking the run's assert blocks and expect_failures against what
// the run planned or applied; the file's states are destroyed, newest
// first, once its runs are over, whether they passed or not.
//
// The package knows test files and their rules, not how a configuration is
// loaded, planned or applied: an Executor, which the cli provides, does
// that for it and hands back the values the run's expressions may read.
//
// A mock_provider block stands in for its provider in every run of the
// file (see NewMockProvider), with the values of its mock_resource and
// mock_data blocks' defaults. Its source names a folder (relative to the
// configuration folder) of mock data files, *.tfmock.hcl and
// *.tfmock.json, whose blocks it takes where its own set nothing for the
// same type or target.
//
// The file's provider and mock_provider blocks stand in for the root
// module's provider configurations only: a child module's own provider
// block (a legacy module) configures its real provider, as in terraform
// test.
//
// A provider block configures its provider in every run of the file in
// place of the configuration's block of that name.
//
// A Reporter shows what runs: Text as terraform test prints it for
// people; the cli's -json writes its machine-readable lines.
//
// override_resource and override_data blocks (in the file, a run, or a
// mock_provider; a run's first, then the file's, then the mock's) serve
// the object they target as a mock does, never through its provider:
// NewOverriding wraps each provider and learns which object a call is for
// from provider.ObjectFrom, which the engine sets on every call.
// override_module blocks (in the file or a run) go to the engine
// (ModuleOverrides), which plans nothing in the module instances they
// target and gives their outputs the blocks' values. override_during =
// plan, on an override, a mock_provider or a mock_resource, gives a
// created object's computed attributes their values while planning.
//
// A provider or mock_provider block with an alias stands in for the
// configuration's provider of that name and alias (tether.west), and a
// run's providers argument maps the configuration's names (aliased or
// not) to the file's.
//
// A run's parallel argument (and a test block's, the default of the
// file's runs) works as in Terraform 1.12, which 1.11 refuses: parallel
// runs on different states that refer to none of each other run at the
// same time (see Dependencies), a run that is not parallel waits for every
// run before it and every run after it for it, and what the runs report
// is shown in the file's order, whichever ends first.
package tftest
