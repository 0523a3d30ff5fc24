// Package startgc keeps Go's garbage collector from running while the
// tether executable starts, before a command sets its own collector
// policy (internal/cli's memory policy) or a server sets its own
// (internal/protocol.Serve).
//
// Only cmd/tether imports it, for its package initialiser: a package that
// links it runs no collection until it sets a policy or calls Release. The
// initialisers of the packages tether links allocate about 3.3 MB, past the
// 2.8 MB at which Go starts its first collection by default (GOGC=100,
// from a 4 MB heap), so without it every tether process, `tether version`
// included, ran one collection while it started: its stop-the-world
// phases and mark workers (threads started for it) competed with the
// command on two cores, though the command turns collection off first
// thing. A GOGC or GOMEMLIMIT in the environment wins, as it does for the
// command's policy: then this package changes nothing.
package startgc
