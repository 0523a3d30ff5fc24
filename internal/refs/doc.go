// Package refs describes values that Tether must not know until the moment
// a provider needs them: a reference says where to find a value (an
// environment variable, a file, a custom source) and is resolved only by
// the engine, in memory, right before the provider call that uses it.
//
// In configuration a reference is a cty capsule, so that any operation on
// it (interpolation, concatenation, comparison, arithmetic) fails instead
// of silently using a placeholder. Where a resource argument receives a
// reference, the front-end puts a placeholder there, its description,
// carrying a Mark that tells the engine what to resolve.
package refs
