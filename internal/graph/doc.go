// Package graph orders work with dependencies: a directed acyclic graph of
// numbered nodes, a topological order, cycles reported with every member in
// order, and a parallel walk that starts each node as soon as everything it
// depends on is done, preferring the node with the longest path still ahead
// of it when workers are scarce. A visit may report its outcome after it
// returns (WalkLater): its dependents wait, its worker does not.
//
// Nodes are dense integers so that graphs of hundreds of thousands of nodes
// cost a few slices, not maps of pointers.
package graph
