// Package providercheck drives a provider.Provider the way the engine does,
// for tests: configuration objects built from a schema, plans proposed with
// the engine's own merge (provider.ProposedNew), private state carried from
// each call to the next, and every plan and apply held to the promises the
// engine holds providers to (provider.PlanProblems, ResultProblems).
//
// A Harness wraps any provider.Provider: the built-in one in process, the
// same provider behind the protocol server, or a plugin process through
// the plugin client. Scenarios written once against a Harness (FileScenarios
// for the built-in provider's tether_file) run against each of them, so
// that every transport is checked against the same expectations.
// FailureScenarios do the same for concurrent calls and a cancelled
// apply; for a plugin, whose Harness carries its Process, they also kill
// it, crash it and close it, and skip those elsewhere.
//
// Only tests use it. It imports nothing of Tether but internal/provider.
package providercheck
