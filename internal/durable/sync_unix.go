//go:build !windows

package durable

func isUnsupported(error) bool { return false }
