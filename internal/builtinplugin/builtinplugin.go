package builtinplugin

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/provider/tether"
)

// executablePrefix is how the file names of the built-in provider's
// plugin start (Terraform's terraform-provider-TYPE).
const executablePrefix = "terraform-provider-tether"

// Main serves the built-in provider and exits when the running executable
// is named as its plugin and has no arguments, that is when Terraform
// started it; otherwise it returns. (The provider starts its own
// executable again with arguments, `runtime router`, for the local
// runtime.) Call it first in main.
func Main() {
	if len(os.Args) != 1 || !strings.HasPrefix(filepath.Base(os.Args[0]), executablePrefix) {
		return
	}
	if err := protocol.Serve(protocol.Address, func() provider.Provider { return tether.New() }); err != nil {
		fmt.Fprintln(os.Stderr, executablePrefix+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// MirrorPath is where, relative to the folder Terraform runs in, the
// plugin of the built-in provider goes in Terraform's implied local
// mirror (terraform.d/plugins, unpacked layout), as a slash path. The
// version is release's without its pre-release part: Terraform selects
// a pre-release only when a constraint names it exactly.
func MirrorPath(release string) (string, error) {
	v, err := version.NewVersion(release)
	if err != nil {
		return "", fmt.Errorf("the version %q is not a version number: %v", release, err)
	}
	core := v.Core().String()
	name := executablePrefix + "_v" + core
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return path.Join("terraform.d/plugins", protocol.Address, core, runtime.GOOS+"_"+runtime.GOARCH, name), nil
}
