// Package durable writes small files that must survive a crash or a power
// cut whole: the new content or the old one, never a mix, and once the
// write returns, the new content for good. Tether's records of where state
// is kept (.tether/backend.json) and which key opens it (.tether/id) are
// such files: a record lost after the state moved would leave the state
// behind a record pointing elsewhere. The dependency lock file, the
// runtime's records of its processes, a local store's values and the
// provider schema cache are written the same way, so that no reader (a
// concurrent run, a polling client) ever sees half a file.
package durable
