package pgtest

// clusterPrefix begins the name of every cluster's folder, in the system's
// temporary folder; ownerFile, in it, holds the pid of the process that
// made it.
const (
	clusterPrefix = "tether-pg-"
	ownerFile     = "owner"
)
