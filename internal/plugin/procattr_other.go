//go:build !unix

package plugin

import "os/exec"

// ownProcessGroup does nothing where there are no process groups: Close
// kills the plugin alone.
func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(*exec.Cmd) error { return nil }
