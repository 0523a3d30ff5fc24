package main

import (
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/recorder"
)

func main() {
	cfg, err := recorder.FromEnv()
	if err == nil {
		err = recorder.Run(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recording-provider:", err)
		os.Exit(1)
	}
}
