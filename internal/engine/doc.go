// Package engine plans and applies a configuration: it orders the
// configuration's nodes by their references and explicit dependencies,
// refreshes recorded objects through their providers, asks each provider to
// plan the change for each resource, and carries a plan out in dependency
// order, re-planning every resource with the values its dependencies really
// produced and committing each completed operation to state before anything
// that depends on it starts.
//
// Providers come from a provider.Factory by source address: the engine
// starts and configures one instance per provider configuration node (one
// per key of a configuration repeated with for_each), binds each resource
// instance to its configuration's instance, and never closes them: the
// caller owns their lifetime. It holds providers to the protocol's promises
// (plans keep configured values, results keep planned ones, write-only
// values are never recorded) and folds a provider's deferral into its own
// deferral rounds.
//
// The engine knows nothing of HCL or Go programs (it sees config.Config) and
// nothing of how state is stored (it sees state.Store).
package engine
