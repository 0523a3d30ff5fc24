// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a temporary folder, a server on a free 127.0.0.1 port with its Unix
// socket in that folder, and a Stop that shuts it down and removes the
// folder, so nothing is left running or on disk.
//
// The binaries are looked for on PATH and in Debian's
// /usr/lib/postgresql/NN/bin. initdb refuses to run as root, so as root the
// cluster is created and run as the postgres system user (or nobody) through
// setpriv.
package pgtest
