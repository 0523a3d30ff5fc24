// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a temporary folder, a server on a free 127.0.0.1 port with its Unix
// socket in that folder, and a Stop that shuts it down and removes the
// folder, so nothing is left running or on disk.
//
// A test process killed before it could call Stop leaves nothing running
// either: the server is its child and, on Linux, gets SIGQUIT (PostgreSQL's
// immediate shutdown) when it dies. Its folder, which records the pid of
// the process that made it, is removed by the next Start on the machine,
// which also stops the server in it where the system could not.
//
// The binaries are looked for on PATH and in Debian's
// /usr/lib/postgresql/NN/bin. initdb refuses to run as root, so as root the
// cluster is created and run as the postgres system user (or nobody) through
// setpriv.
package pgtest
