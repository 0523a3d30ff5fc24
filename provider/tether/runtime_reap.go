package tether

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// A process being started is not in any state until its start is
// confirmed and the engine records the new object: a run killed in that
// moment (a start can wait 15 seconds for a port) would leave a process
// and its folder that no state names and no destroy stops. So the folder
// says, while the start lasts, which process is starting it and which
// process it started; whoever configures the provider next stops what a
// starter that no longer runs left behind.
//
// The marker is written before the process is started, and again with the
// process once it runs. A starter killed between the two leaves a marker
// without the process: it is then found by its log, which is in the
// folder and which the process (and whatever it starts) holds open as its
// output, through /proc on Linux; elsewhere that moment stays uncovered.

// startingFileName names the marker of a start in progress.
const startingFileName = "starting.json"

type startingRecord struct {
	// Starter is the process running the provider that started it.
	Starter procInfo `json:"starter"`
	// Process is the process started; zero until it runs.
	Process procInfo `json:"process"`
	// Log is the process's output, which it holds open.
	Log string `json:"log"`
	// Created is set when the folder was made for this start, so that
	// nothing else lives in it.
	Created bool `json:"created"`
}

// markStarting records a start in progress in its instance folder: before
// the process is started (p zero), then with it.
func markStarting(dir string, p procInfo, logPath string, created bool) error {
	return writeJSON(filepath.Join(dir, startingFileName), startingRecord{Starter: identify(os.Getpid()), Process: p, Log: logPath, Created: created})
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
		procs := []procInfo{rec.Process}
		if rec.Process.PID == 0 {
			// Killed before it recorded what it started, if it started
			// anything.
			procs = holdersOf(rec.Log)
		}
		var stopErr error
		for _, p := range procs {
			if err := stopProcess(ctx, p); err != nil {
				stopErr = errors.Join(stopErr, fmt.Errorf("stopping process %d, whose start in %s was abandoned: %w", p.PID, dir, err))
			}
		}
		if stopErr != nil {
			errs = append(errs, stopErr)
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

// holdersOf returns the process groups of the processes that hold path
// open, each as its leader: a runtime process is started as the leader of
// its own session and group. It reads /proc, and finds nothing without it.
func holdersOf(path string) []procInfo {
	if path == "" || !procFSAvailable() {
		return nil
	}
	// /proc names the file by its real path.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	pids, _ := filepath.Glob("/proc/[0-9]*")
	groups := map[int]bool{}
	for _, d := range pids {
		fds, err := os.ReadDir(filepath.Join(d, "fd"))
		if err != nil {
			continue // gone, or not ours to look into
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(d, "fd", fd.Name())); err == nil && target == path {
				pid, _ := strconv.Atoi(filepath.Base(d))
				if pgid, err := processGroup(pid); err == nil && pgid > 1 {
					groups[pgid] = true
				}
				break
			}
		}
	}
	var out []procInfo
	for g := range groups {
		out = append(out, identify(g))
	}
	return out
}
