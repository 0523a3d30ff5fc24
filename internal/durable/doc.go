// Package durable writes small files that must survive a crash or a power
// cut whole: the new content or the old one, never a mix, and once the
// write returns, the new content for good. Tether's records of where state
// is kept (.tether/backend.json) and which key opens it (.tether/id) are
// such files: a record lost after the state moved would leave the state
// behind a record pointing elsewhere.
package durable
