//go:build !unix

package tether

import "syscall"

func detached() *syscall.SysProcAttr { return nil }
func grouped() *syscall.SysProcAttr  { return nil }
func terminateGroup(pgid int) error  { return errNoRuntime }
func killGroup(pgid int) error       { return errNoRuntime }
func groupExists(pgid int) bool      { return false }
func processExists(pid int) bool     { return false }
func leadsGroup(pid int) bool        { return false }

const runtimeSupported = false

func processGroup(pid int) (int, error) { return 0, errNoRuntime }
