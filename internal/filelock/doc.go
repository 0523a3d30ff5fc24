// Package filelock takes an exclusive advisory lock on a file, so that
// processes sharing a folder (a provider install, a build cache, a shared
// provider's configuration) take turns. It is flock(2) where the system
// has it and no lock elsewhere; the lock is released when the returned
// function is called or the process exits.
package filelock
