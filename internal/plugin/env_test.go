package plugin

import (
	"os/exec"
	"slices"
	"testing"
)

// A plugin is told to keep quiet unless its logs are wanted, whatever
// TF_LOG_* the user set for Tether's own log.
func TestPluginEnv(t *testing.T) {
	user := []string{"HOME=/home/u", "TF_LOG=TRACE", "TF_LOG_SDK=trace"}
	// What the process gets: os/exec keeps the last entry of a name.
	effective := func(env []string) []string {
		cmd := exec.Command("true")
		cmd.Env = env
		return cmd.Environ()
	}

	quiet := effective(pluginEnv(user, false))
	for _, kv := range append([]string{"HOME=/home/u", "TF_LOG=TRACE"}, quietLogs...) {
		if !slices.Contains(quiet, kv) {
			t.Errorf("logs not wanted: %s missing from %q", kv, quiet)
		}
	}
	if slices.Contains(quiet, "TF_LOG_SDK=trace") {
		t.Errorf("logs not wanted: the user's TF_LOG_SDK=trace reaches the plugin: %q", quiet)
	}
	if len(user) != 3 || user[2] != "TF_LOG_SDK=trace" {
		t.Errorf("the caller's environment changed: %q", user)
	}

	if got := effective(pluginEnv(user, true)); !slices.Equal(got, user) {
		t.Errorf("logs wanted: environment %q, want the user's %q", got, user)
	}
}
