// Command testprovider is the provider "testing" that Tether's scenarios
// install from a filesystem mirror as registry.terraform.io/tetherhq/testing
// (package providertest builds it with `go build`). It is written with
// terraform-plugin-framework and served over protocol 6, and it exercises
// what the real time and local providers do not:
//
//   - a provider configuration (prefix, fail_configure) that resources
//     read, so that a configuration that is unknown while planning and known
//     while applying shows in the objects;
//   - nested attributes (testing_nested);
//   - 64-bit integers that a float64 would round (testing_thing's serial);
//   - a schema upgrade (testing_upgraded, schema version 1 upgrading 0; a
//     build with -ldflags "-X main.upgradedSchema=0" has the old schema);
//   - a process that exits in the middle of an apply (crash_on_create);
//   - a remote object deleted outside Terraform (testing_file);
//   - moves across resource types (testing_moved, from testing_thing);
//   - a write-only attribute (testing_secret's password_wo);
//   - a provider that echoes a credential it was configured with (api_key)
//     in a warning, its log, a computed attribute and an error
//     (testing_echo), whole, in part, encoded and digested, and that
//     keeps it in its private data, which it checks on every read; the
//     data source testing_echo echoes it the same way; its part blocks
//     echo their own input in a computed attribute of the block;
//   - deferral: with defer_unknown, a provider whose prefix is not known
//     yet defers what it is asked to plan.
package main
