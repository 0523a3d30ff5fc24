package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/internal/durable"
)

const environmentFile = "environment"

// Selected returns the workspace in use: TF_WORKSPACE when set, else the
// one recorded by tether workspace select, else default.
func Selected(stateDir string) (string, error) {
	if ws := os.Getenv("TF_WORKSPACE"); ws != "" {
		if err := CheckName(ws); err != nil {
			return "", fmt.Errorf("TF_WORKSPACE: %w", err)
		}
		return ws, nil
	}
	b, err := os.ReadFile(filepath.Join(stateDir, environmentFile))
	if errors.Is(err, os.ErrNotExist) {
		return DefaultWorkspace, nil
	}
	if err != nil {
		return "", err
	}
	ws := strings.TrimSpace(string(b))
	if err := CheckName(ws); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(stateDir, environmentFile), err)
	}
	return ws, nil
}

// Select records the workspace in use.
func Select(stateDir, ws string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	if ws == DefaultWorkspace {
		err := os.Remove(filepath.Join(stateDir, environmentFile))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return durable.WriteFile(filepath.Join(stateDir, environmentFile), []byte(ws+"\n"), 0o644)
}
