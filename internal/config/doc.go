// Package config is the one description of what the user wants that both
// front-ends produce: the HCL loader and the Go SDK. It holds resources, data
// sources, variables, locals, outputs and provider configurations as nodes
// with their references, explicit dependencies, source positions and a
// function that evaluates each node from the values of what it references.
//
// The engine plans and applies a Config without knowing which front-end made
// it; evaluation is a plain function so that each front-end keeps its own
// expression language.
package config
