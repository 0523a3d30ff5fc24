//go:build !unix

package main

import (
	"os"
	"os/exec"
	"time"
)

// maxRSS is not known on this system.
func maxRSS(*os.ProcessState) int64 { return 0 }

func ownProcessGroup(*exec.Cmd) {}

func selfCPU() time.Duration     { return 0 }
func childrenCPU() time.Duration { return 0 }
