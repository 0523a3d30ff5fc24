// Package provider defines how the engine talks to providers: one interface
// shaped after the Terraform plugin protocol (schema, validate, configure,
// plan, apply, read, read data source, upgrade state, import), expressed in
// cty values so that in-process providers pay no serialization cost.
//
// A provider knows nothing of the graph or of state storage: each call
// carries everything it needs. Diagnostics use hcl.Diagnostics so that the
// engine can attach configuration source ranges to what a provider reports.
//
// It also holds the protocol's rules that sit on the engine's side of a
// call, so that the engine and the tests that drive providers as it does
// (internal/providercheck) share one copy: ProposedNew, the merge of
// configuration and prior state a plan starts from (PlannedDataObject for
// a data source read during apply), and PlanProblems and ResultProblems,
// the promises a plan and an apply must keep, all by Terraform's rules.
package provider
