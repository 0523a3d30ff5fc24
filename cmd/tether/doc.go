// Command tether is Tether's command line: plan, up, destroy, output,
// state, graph, test, gen and provider serve. Everything it does lives in
// internal/cli; this package only hands it the process's arguments and
// streams.
package main
