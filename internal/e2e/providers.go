package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/providertest"
)

// offlineProviders gives a scenario a Terraform CLI configuration whose
// only installation method is the filesystem mirror $WORK/.mirror, which
// the mirror command fills: no scenario reaches a registry on the network.
func offlineProviders(env *testscript.Env) error {
	if err := os.MkdirAll(filepath.Join(env.WorkDir, ".mirror"), 0o755); err != nil {
		return err
	}
	rc := filepath.Join(env.WorkDir, ".terraformrc")
	text := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", filepath.Join(env.WorkDir, ".mirror"))
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		return err
	}
	env.Setenv("TF_CLI_CONFIG_FILE", rc)
	env.Setenv("TF_PLUGIN_CACHE_DIR", "")
	return nil
}

// providersCondition is the [providers] condition: true when the real
// providers (time, local) can be built, false only for want of the Go
// module proxy, so that a scenario can say `[!providers] skip`.
func providersCondition(cond string) (bool, error) {
	if cond != "providers" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	for _, name := range providertest.Names() {
		_, err := providertest.Build(name)
		if errors.Is(err, providertest.ErrNoProxy) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// mirror puts real provider builds (time, local) into the scenario's
// filesystem mirror, in Terraform's unpacked layout.
func mirror(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mirror NAME...")
	}
	for _, name := range args {
		p, err := providertest.Build(name)
		ts.Check(err)
		pkg := filepath.Join(ts.Getenv("WORK"), ".mirror", p.Source.Hostname.String(), p.Source.Namespace, p.Source.Type, p.Version, providertest.Platform())
		ts.Check(os.MkdirAll(pkg, 0o755))
		ts.Check(copyExecutable(p.Executable, filepath.Join(pkg, p.BinaryName())))
	}
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// noPlugins fails when a provider plugin started from the scenario's
// folder is still running: every tether command stops the providers it
// started, however it ends.
func noPlugins(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: noplugins")
	}
	work := ts.Getenv("WORK")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		ts.Fatalf("noplugins lists processes in /proc: %v", err)
	}
	var left []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		if strings.HasPrefix(exe, work+string(filepath.Separator)) && strings.Contains(filepath.Base(exe), "terraform-provider-") {
			left = append(left, fmt.Sprintf("pid %s: %s", e.Name(), exe))
		}
	}
	if len(left) > 0 {
		ts.Fatalf("provider processes still running:\n%s", strings.Join(left, "\n"))
	}
}

// providerRegistry is the command `provregistry NAME...`: a provider
// registry on 127.0.0.1 serving the real providers named (time, local),
// signed by a key of its own, for the scenario; it sets REGISTRY to its
// host and SSL_CERT_FILE so that tether trusts it.
type providerRegistry struct{ t *testing.T }

func (r providerRegistry) serve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: provregistry NAME...")
	}
	var ps []providertest.Provider
	for _, name := range args {
		p, err := providertest.Build(name)
		ts.Check(err)
		ps = append(ps, p)
	}
	srv := providertest.NewServer(r.t, ps...)
	ts.Setenv("REGISTRY", srv.Host.String())
	ts.Setenv("SSL_CERT_FILE", srv.CAFile)
}
