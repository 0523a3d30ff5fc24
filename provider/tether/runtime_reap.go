package tether

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A process being started is not in any state until its start is
// confirmed and the engine records the new object: a run killed in that
// moment (a start can wait 15 seconds for a port) would leave a process
// and its folder that no state names and no destroy stops. So the folder
// says, while the start lasts, which process is starting it and which
// process it started; whoever configures the provider next stops what a
// starter that no longer runs left behind.

// startingFileName names the marker of a start in progress.
const startingFileName = "starting.json"

type startingRecord struct {
	// Starter is the process running the provider that started it.
	Starter procInfo `json:"starter"`
	// Process is the process started.
	Process procInfo `json:"process"`
	// Created is set when the folder was made for this start, so that
	// nothing else lives in it.
	Created bool `json:"created"`
}

// markStarting records a start in progress in its instance folder.
func markStarting(dir string, p procInfo, created bool) error {
	return writeJSON(filepath.Join(dir, startingFileName), startingRecord{Starter: identify(os.Getpid()), Process: p, Created: created})
}

// startConfirmed removes the marker once the provider answers with the
// started process, which the engine records.
func startConfirmed(dir string) {
	os.Remove(filepath.Join(dir, startingFileName))
}

// reapAbandoned stops every process whose start was abandoned: its
// folder's marker names a starter that no longer runs. A folder made for
// that start is removed with it; an existing one (a restart) keeps its
// files, and the next plan sees its process stopped.
func (c *runtimeConfig) reapAbandoned(ctx context.Context) error {
	root, err := c.dir()
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		var rec startingRecord
		if err := readJSON(filepath.Join(dir, startingFileName), &rec); err != nil {
			continue // no start in progress, or not ours to judge
		}
		if rec.Starter.status() == procOurs {
			continue // still starting it
		}
		if err := stopProcess(ctx, rec.Process); err != nil {
			errs = append(errs, fmt.Errorf("stopping process %d, whose start in %s was abandoned: %w", rec.Process.PID, dir, err))
			continue
		}
		if rec.Created {
			err = removeInstanceDir(dir)
		} else {
			err = os.Remove(filepath.Join(dir, startingFileName))
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
