//go:build !linux

package plugin

import "os"

func statKeyExtra(os.FileInfo) string { return "" }
