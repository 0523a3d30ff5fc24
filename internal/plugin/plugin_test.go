package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

func compareSchemas(t *testing.T, kind string, got, want map[string]*provider.ResourceSchema) {
	t.Helper()
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

func fileConfig(path, content string, perm cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"path":            cty.StringVal(path),
		"content":         cty.StringVal(content),
		"file_permission": perm,
		"sha256":          cty.NullVal(cty.String),
		"id":              cty.NullVal(cty.String),
	})
}

func noErrors(t *testing.T, what string, diags hcl.Diagnostics) {
	t.Helper()
	if len(diags) > 0 {
		t.Fatalf("%s: %v", what, diags)
	}
}

func valueConfig(input, delay cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"input":    input,
		"output":   cty.NullVal(cty.DynamicPseudoType),
		"delay_ms": delay,
		"id":       cty.NullVal(cty.String),
	})
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

// The diagnostics of a validation name the attribute at fault, and those
// the client makes itself say what was wrong.
func TestDiagnosticPaths(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		slow := valueConfig(cty.StringVal("x"), cty.NumberIntVal(-5))
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

func TestConcurrentCalls(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		ctx := context.Background()
		ty := resourceType(c, "tether_value")
		dir := t.TempDir()
		const n = 50
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				errs <- func() error {
					if _, diags := c.GetSchema(); diags.HasErrors() {
						return fmt.Errorf("schema: %v", diags)
					}
					input := cty.ObjectVal(map[string]cty.Value{"i": cty.NumberIntVal(int64(i)), "tags": cty.ListVal([]cty.Value{cty.StringVal(fmt.Sprint("t", i))})})
					cfg := valueConfig(input, cty.NumberIntVal(int64(i%5)))
					if diags := c.ValidateResourceConfig("tether_value", cfg); len(diags) > 0 {
						return fmt.Errorf("validate: %v", diags)
					}
					plan := c.PlanResourceChange(ctx, provider.PlanRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), ProposedNewState: cfg, Config: cfg})
					if len(plan.Diagnostics) > 0 {
						return fmt.Errorf("plan: %v", plan.Diagnostics)
					}
					apply := c.ApplyResourceChange(ctx, provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: cfg})
					if len(apply.Diagnostics) > 0 {
						return fmt.Errorf("apply: %v", apply.Diagnostics)
					}
					if got := apply.NewState.GetAttr("output"); !got.RawEquals(input) {
						return fmt.Errorf("output %#v, want %#v", got, input)
					}
					read := c.ReadResource(ctx, provider.ReadRequest{TypeName: "tether_value", PriorState: apply.NewState})
					if len(read.Diagnostics) > 0 || !read.NewState.RawEquals(apply.NewState) {
						return fmt.Errorf("read: %#v %v", read.NewState, read.Diagnostics)
					}
					// And a real file each, so that the provider's writes
					// interleave too.
					fcfg := fileConfig(filepath.Join(dir, fmt.Sprint(i)), fmt.Sprint(i), cty.NullVal(cty.String))
					fty := resourceType(c, "tether_file")
					fplan := c.PlanResourceChange(ctx, provider.PlanRequest{TypeName: "tether_file", PriorState: cty.NullVal(fty), ProposedNewState: fcfg, Config: fcfg})
					fapply := c.ApplyResourceChange(ctx, provider.ApplyRequest{TypeName: "tether_file", PriorState: cty.NullVal(fty), PlannedState: fplan.PlannedState, Config: fcfg})
					if diags := append(fplan.Diagnostics, fapply.Diagnostics...); len(diags) > 0 {
						return fmt.Errorf("file: %v", diags)
					}
					return nil
				}()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != n {
			t.Errorf("%d files written (%v), want %d", len(entries), err, n)
		}
	})
}

// An apply whose context ends is not abandoned: the provider is asked to
// stop and its own answer (here, the built-in provider's report that it was
// interrupted) comes back.
func TestApplyCancelStopsProvider(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		ty, cfg, plan := planSlowValue(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		apply := c.ApplyResourceChange(ctx, provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: cfg})
		if elapsed := time.Since(start); elapsed > 20*time.Second {
			t.Errorf("cancelled apply took %v", elapsed)
		}
		if len(apply.Diagnostics) != 1 || !strings.Contains(apply.Diagnostics[0].Summary, "Interrupted while storing tether_value") {
			t.Errorf("want the provider's interruption error, got %v", apply.Diagnostics)
		}
		if !apply.NewState.IsNull() {
			t.Errorf("interrupted create left %#v", apply.NewState)
		}

		// An apply whose context has already ended is not started.
		apply = c.ApplyResourceChange(ctx, provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: cfg})
		if len(apply.Diagnostics) != 1 || apply.Diagnostics[0].Summary != "Provider call cancelled" {
			t.Errorf("apply after cancel: %v", apply.Diagnostics)
		}

		// The provider works on afterwards.
		quick := valueConfig(cty.StringVal("quick"), cty.NullVal(cty.Number))
		plan = c.PlanResourceChange(context.Background(), provider.PlanRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), ProposedNewState: quick, Config: quick})
		apply = c.ApplyResourceChange(context.Background(), provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: quick})
		noErrors(t, "apply after stop", append(plan.Diagnostics, apply.Diagnostics...))
	})
}

// planSlowValue plans a tether_value whose apply takes ten minutes, unless
// something interrupts it.
func planSlowValue(t *testing.T, c *Client) (cty.Type, cty.Value, provider.PlanResponse) {
	t.Helper()
	ty := resourceType(c, "tether_value")
	cfg := valueConfig(cty.StringVal("slow"), cty.NumberIntVal(600_000))
	plan := c.PlanResourceChange(context.Background(), provider.PlanRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), ProposedNewState: cfg, Config: cfg})
	noErrors(t, "plan", plan.Diagnostics)
	return ty, cfg, plan
}

func TestCloseKillsProcess(t *testing.T) {
	protocols(t, func(t *testing.T, c *Client) {
		if c.pid <= 0 || !alive(c.pid) {
			t.Fatalf("plugin pid %d not running", c.pid)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if alive(c.pid) {
			t.Fatalf("plugin pid %d still exists after Close", c.pid)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		diags := c.ValidateResourceConfig("tether_file", fileConfig("x", "x", cty.NullVal(cty.String)))
		if len(diags) != 1 || diags[0].Summary != "Provider plugin closed" {
			t.Errorf("call after Close: %v", diags)
		}
		read := c.ReadResource(context.Background(), provider.ReadRequest{TypeName: "tether_value", PriorState: cty.NullVal(resourceType(c, "tether_value"))})
		if len(read.Diagnostics) != 1 || read.Diagnostics[0].Summary != "Provider plugin closed" {
			t.Errorf("read after Close: %v", read.Diagnostics)
		}
	})
}

// A plugin that dies mid-call is reported as a crash, with what it printed.
func TestPluginCrash(t *testing.T) {
	t.Parallel()
	t.Run("panic", func(t *testing.T) {
		t.Parallel()
		c := startClient(t, tether5Bin)
		ty := resourceType(c, "tether_value")
		cfg := valueConfig(cty.StringVal("panic"), cty.NullVal(cty.Number))
		plan := c.PlanResourceChange(context.Background(), provider.PlanRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), ProposedNewState: cfg, Config: cfg})
		noErrors(t, "plan", plan.Diagnostics)
		apply := c.ApplyResourceChange(context.Background(), provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(ty), PlannedState: plan.PlannedState, Config: cfg})
		if len(apply.Diagnostics) != 1 || apply.Diagnostics[0].Summary != "Provider plugin crashed" {
			t.Fatalf("want a crash, got %v", apply.Diagnostics)
		}
		if d := apply.Diagnostics[0].Detail; !strings.Contains(d, "panic: tether5: asked to panic") || !strings.Contains(d, tether5Bin) {
			t.Errorf("crash detail lacks the panic or the path:\n%s", d)
		}
		if !apply.NewState.IsNull() {
			t.Errorf("crashed create left %#v", apply.NewState)
		}
		if alive(c.pid) {
			t.Errorf("crashed plugin %d still exists", c.pid)
		}
	})
	t.Run("killed", func(t *testing.T) {
		t.Parallel()
		c := startClient(t, tether6Bin)
		if err := syscall.Kill(c.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-c.exited.Done()
		diags := c.ValidateResourceConfig("tether_file", fileConfig("x", "x", cty.NullVal(cty.String)))
		if len(diags) != 1 || diags[0].Summary != "Provider plugin crashed" {
			t.Errorf("call to a killed plugin: %v", diags)
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

func TestStartFailures(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"exits at once", "/bin/true", []string{"/bin/true"}},
		{"missing", "/nonexistent/terraform-provider-x", []string{"/nonexistent/terraform-provider-x", "no such file"}},
		{"talks nonsense", writeScript(t, "echo 'and I complain on stderr' >&2\necho 'hello, I am a shell script'\n"), []string{"not-a-plugin.sh", "hello, I am a shell script", "and I complain on stderr"}},
		{"old protocol", writeScript(t, "echo '1|4|unix|/nonexistent.sock|grpc|'\nexec sleep 5\n"), []string{"not-a-plugin.sh", "Plugin version: 4"}},
		{"not executable", filepath.Join(binDir, "..", filepath.Base(binDir)), []string{filepath.Base(binDir)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			p, err := Start(ctx, tc.path)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("failing took %v", elapsed)
			}
		})
	}
}

// A start that hangs ends with its context, and takes the process with it.
func TestStartCancelled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := writeScript(t, "echo $$ > "+pidFile+"\nexec sleep 60\n")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Start(ctx, script)
	if err == nil || !strings.Contains(err.Error(), "start interrupted") || !strings.Contains(err.Error(), script) {
		t.Fatalf("Start: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("cancelled start took %v", elapsed)
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

// resourceType is the implied type of a resource type of c's provider.
func resourceType(c *Client, name string) cty.Type {
	ty, _ := c.resourceType(name)
	return ty
}
