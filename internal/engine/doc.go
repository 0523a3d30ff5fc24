// Package engine plans and applies a configuration: it orders the
// configuration's nodes by their references and explicit dependencies,
// refreshes recorded objects through their providers, asks each provider to
// plan the change for each resource, and carries a plan out in dependency
// order, re-planning every resource with the values its dependencies really
// produced and committing each completed operation to state before anything
// that depends on it starts.
//
// The engine knows nothing of HCL or Go programs (it sees config.Config) and
// nothing of how state is stored (it sees state.Store).
package engine
