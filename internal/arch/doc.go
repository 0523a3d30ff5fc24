// Package arch is the architecture file of a Go program that deploys
// closures, .tether/arch.json: its resources, its closures (functions of
// the program handed to infrastructure), and how they relate. The SDK
// writes it each time it loads such a program; `tether graph --arch` shows
// it as a DOT graph.
package arch
