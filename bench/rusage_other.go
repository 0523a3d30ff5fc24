//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// maxRSS is not known on this system.
func maxRSS(*os.ProcessState) int64 { return 0 }

func ownProcessGroup(*exec.Cmd) {}
