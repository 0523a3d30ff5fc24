package builtinplugin

import (
	"runtime"
	"strings"
	"testing"
)

// The plugin goes where Terraform's implied local mirror looks, under a
// release version Terraform selects without an exact constraint.
func TestMirrorPath(t *testing.T) {
	got, err := MirrorPath("0.1.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	want := "terraform.d/plugins/registry.terraform.io/tetherhq/tether/0.1.0/" + runtime.GOOS + "_" + runtime.GOARCH + "/terraform-provider-tether_v0.1.0"
	if runtime.GOOS == "windows" {
		want += ".exe"
	}
	if got != want {
		t.Errorf("MirrorPath = %q, want %q", got, want)
	}
	if _, err := MirrorPath("dev"); err == nil || !strings.Contains(err.Error(), `"dev" is not a version number`) {
		t.Errorf("MirrorPath(dev) gave %v, want an error naming it", err)
	}
}
