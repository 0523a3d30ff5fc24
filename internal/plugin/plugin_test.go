package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/provider/tether"
	"github.com/zclconf/go-cty/cty"
)

func TestSchemaMatchesInProcess(t *testing.T) {
	want, diags := tether.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	protocols(t, func(t *testing.T, c *Client) {
		got, diags := c.GetSchema()
		if len(diags) > 0 {
			t.Fatalf("schema diagnostics: %v", diags)
		}
		compareBlock(t, "provider", got.Provider, want.Provider)
		compareSchemas(t, "resource", got.Resources, want.Resources)
		compareSchemas(t, "data source", got.DataSources, want.DataSources)
		// The in-process provider plans its own destroys; the protocol 5
		// test plugin leaves them to the client.
		if c.planDestroy != (c.protocolVersion == 6) {
			t.Errorf("planDestroy = %v", c.planDestroy)
		}
	})
}

func compareSchemas(t *testing.T, kind string, gotTypes, wantTypes *provider.Types) {
	t.Helper()
	got, err := gotTypes.All()
	if err != nil {
		t.Fatalf("%s types: %v", kind, err)
	}
	want, err := wantTypes.All()
	if err != nil {
		t.Fatalf("%s types wanted: %v", kind, err)
	}
	if len(got) != len(want) {
		t.Errorf("%d %s types, want %d", len(got), kind, len(want))
	}
	for name, ws := range want {
		gs, ok := got[name]
		if !ok {
			t.Errorf("%s %s missing", kind, name)
			continue
		}
		if gs.Version != ws.Version {
			t.Errorf("%s %s: version %d, want %d", kind, name, gs.Version, ws.Version)
		}
		compareBlock(t, kind+" "+name, gs.Block, ws.Block)
	}
}

func compareBlock(t *testing.T, where string, got, want *provider.Block) {
	t.Helper()
	if got.Description != want.Description || got.Deprecated != want.Deprecated {
		t.Errorf("%s: description %q deprecated %v, want %q %v", where, got.Description, got.Deprecated, want.Description, want.Deprecated)
	}
	if len(got.Attributes) != len(want.Attributes) {
		t.Errorf("%s: attributes %v, want %v", where, got.AttributeNames(), want.AttributeNames())
	}
	for name, wa := range want.Attributes {
		ga, ok := got.Attributes[name]
		if !ok {
			t.Errorf("%s: attribute %s missing", where, name)
			continue
		}
		if !ga.Type.Equals(wa.Type) {
			t.Errorf("%s.%s: type %s, want %s", where, name, ga.Type.GoString(), wa.Type.GoString())
		}
		gt, wt := *ga, *wa
		gt.Type, wt.Type = cty.NilType, cty.NilType
		if gt != wt {
			t.Errorf("%s.%s: %+v, want %+v", where, name, gt, wt)
		}
	}
	if len(got.BlockTypes) != len(want.BlockTypes) {
		t.Errorf("%s: block types %v, want %v", where, got.BlockTypeNames(), want.BlockTypeNames())
	}
	for name, wb := range want.BlockTypes {
		gb, ok := got.BlockTypes[name]
		if !ok {
			t.Errorf("%s: block %s missing", where, name)
			continue
		}
		if gb.Nesting != wb.Nesting || gb.MinItems != wb.MinItems || gb.MaxItems != wb.MaxItems {
			t.Errorf("%s.%s: nesting %s %d..%d, want %s %d..%d", where, name, gb.Nesting, gb.MinItems, gb.MaxItems, wb.Nesting, wb.MinItems, wb.MaxItems)
		}
		compareBlock(t, where+"."+name, &gb.Block, &wb.Block)
	}
}

func noErrors(t *testing.T, what string, diags hcl.Diagnostics) {
	t.Helper()
	if len(diags) > 0 {
		t.Fatalf("%s: %v", what, diags)
	}
}

// TestValue runs the expectations of tether_value, the same ones
// provider/tether runs in process, against the provider as a plugin over
// each protocol version: values keep their structure, and numbers too big
// for a float64 every digit, through MessagePack in plan, apply and read,
// and through JSON in a state upgrade.
func TestValue(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		providercheck.Run(t, func(t *testing.T) *providercheck.Harness { return providercheck.New(t, c, nil) }, providercheck.ValueScenarios...)
	})
}

// TestFile runs the expectations of tether_file, the same ones
// provider/tether runs in process, against the provider as a plugin over
// each protocol version.
func TestFile(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		providercheck.Run(t, func(t *testing.T) *providercheck.Harness { return providercheck.New(t, c, nil) }, providercheck.FileScenarios...)
	})
}

// TestRuntime runs the runtime's expectations (the same ones
// provider/tether runs in process) against the provider as a plugin over
// each protocol version; the plugin's executable is the function too.
func TestRuntime(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
			dir := filepath.Join(t.TempDir(), "runtime")
			return providercheck.New(t, c, map[string]cty.Value{"runtime_dir": cty.StringVal(dir)})
		}, providercheck.RuntimeScenarios(c.path, "runtime", "echo")...)
	})
}

// TestFailures runs the failure scenarios (the same ones provider/tether
// runs in process and internal/protocol behind the protocol server)
// against the provider as a plugin over each protocol version, each
// scenario with a plugin process of its own, which it may kill or crash.
// The protocol 6 plugin is the real build, cmd/terraform-provider-tether,
// without the test plugin's hooks; the test plugin has them, over either
// version.
func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bin     *string
		version int
		hooks   bool
	}{
		{"protocol6", &tether6Bin, 6, false},
		{"protocol6 hooks", &hooks6Bin, 6, true},
		{"protocol5 hooks", &tether5Bin, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
				c := startClient(t, *tc.bin)
				if c.protocolVersion != tc.version {
					t.Fatalf("negotiated protocol %d, want %d", c.protocolVersion, tc.version)
				}
				h := providercheck.New(t, c, nil)
				h.Process = &providercheck.Process{
					Path:    c.path,
					Pid:     c.pid,
					Exited:  c.exited.Done(),
					Close:   c.Close,
					Running: running,
					Hooks:   tc.hooks,
				}
				h.SignalsApplies = tc.hooks
				return h
			}, providercheck.FailureScenarios...)
		})
	}
}

// The diagnostics of a validation name the attribute at fault, and those
// the client makes itself say what was wrong.
func TestDiagnosticPaths(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		h := providercheck.New(t, c, nil)
		slow := h.Config("tether_value", map[string]cty.Value{"input": cty.StringVal("x"), "delay_ms": cty.NumberIntVal(-5)})
		providercheck.WantOnlyError(t, c.ValidateResourceConfig("tether_value", slow), cty.GetAttrPath("delay_ms"), "whole number of milliseconds")

		// Types the provider lacks fail before any call.
		diags := c.ValidateResourceConfig("tether_nope", cty.EmptyObjectVal)
		if len(diags) != 1 || !strings.Contains(diags[0].Summary, "Unsupported resource type") {
			t.Errorf("unknown type: %v", diags)
		}
		// So do values that do not fit the schema.
		diags = c.ValidateResourceConfig("tether_file", cty.ObjectVal(map[string]cty.Value{"path": cty.StringVal("x")}))
		if len(diags) != 1 || !strings.Contains(diags[0].Summary, "Invalid value for provider") {
			t.Errorf("ill-typed config: %v", diags)
		}
	})
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "not-a-plugin.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A binary that is no plugin of Terraform's protocol fails to start with
// an error naming it and saying what it did; a start that hangs instead
// is caught by go test's -timeout.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"exits at once", "/bin/true", []string{"/bin/true"}},
		{"missing", "/nonexistent/terraform-provider-x", []string{"/nonexistent/terraform-provider-x", "no such file"}},
		{"talks nonsense", writeScript(t, "echo 'and I complain on stderr' >&2\necho 'hello, I am a shell script'\n"), []string{"not-a-plugin.sh", "hello, I am a shell script", "and I complain on stderr"}},
		{"old protocol", writeScript(t, "echo '1|4|unix|/nonexistent.sock|grpc|'\nexec sleep 5\n"), []string{"not-a-plugin.sh", "Plugin version: 4"}},
		{"newer protocol", writeScript(t, "echo '1|7|unix|/nonexistent.sock|grpc|'\nexec sleep 5\n"), []string{"not-a-plugin.sh", "Plugin version: 7"}},
		{"net/rpc, not gRPC", writeScript(t, "echo '1|6|unix|/nonexistent.sock|netrpc|'\nexec sleep 5\n"), []string{"not-a-plugin.sh", `unsupported plugin protocol "netrpc"`}},
		{"not executable", filepath.Join(binDir, "..", filepath.Base(binDir)), []string{filepath.Base(binDir)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(t.Context(), tc.path)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

// A start that hangs ends with its context, and takes the process with it.
func TestStartCancelled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := writeScript(t, "echo $$ > "+pidFile+"\nexec sleep 60\n")
	_, err := Start(cancelOncePids(t, pidFile, 1), script)
	if err == nil || !strings.Contains(err.Error(), "start interrupted") || !strings.Contains(err.Error(), script) {
		t.Fatalf("Start: %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("process %d outlived the cancelled start", pid)
	}

	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := Start(done, tether6Bin); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a done context: %v", err)
	}
}
