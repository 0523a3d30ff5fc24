package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/backend"
)

// backendOptions are init's backend flags.
type backendOptions struct {
	configs              []string // -backend-config arguments, in order
	migrate, reconfigure bool
}

type backendConfigs struct{ list *[]string }

func (b backendConfigs) String() string { return "" }
func (b backendConfigs) Set(s string) error {
	*b.list = append(*b.list, s)
	return nil
}

// initBackend settles the backend, as the first step of `terraform init`
// does: a new or changed backend block is set up and recorded, with its
// state moved there when asked. It returns the exit code to stop with, or
// -1 to go on.
func (e *env) initBackend(ctx context.Context, vars []varArg, bo backendOptions) int {
	block, ok := e.backendBlock(vars)
	if !ok {
		return 1
	}
	var overrides map[string]string
	switch {
	case block != nil:
		var diags hcl.Diagnostics
		overrides, diags = backend.Overrides(block.Type, bo.configs)
		if diags.HasErrors() {
			e.configDiagnostics(nil, diags)
			return 1
		}
	case len(bo.configs) > 0:
		return e.errorf("%v", backend.ErrOverridesWithoutBlock)
	}
	want, err := backend.FromBlock(block, overrides)
	if err != nil {
		return e.errorf("%v", err)
	}
	stored, err := backend.ReadSettings(stateDir)
	if err != nil && !bo.reconfigure {
		return e.errorf("%v", err)
	}
	if stored == nil && block == nil {
		return -1 // local, as always: nothing to record
	}
	fmt.Fprintln(e.stdout, "Initializing the backend...")
	current := backend.Local
	if stored != nil {
		current = *stored
	}
	if current.Equal(want) {
		if stored == nil || stored.Hash != want.Hash {
			if err := backend.WriteSettings(stateDir, want); err != nil {
				return e.errorf("%v", err)
			}
		}
		if code := e.checkBackend(ctx, want); code >= 0 {
			return code
		}
		return e.finishSetAside(ctx, want)
	}
	if bo.reconfigure {
		if code := e.checkBackend(ctx, want); code >= 0 {
			return code
		}
		if err := backend.WriteSettings(stateDir, want); err != nil {
			return e.errorf("%v", err)
		}
		fmt.Fprintf(e.stdout, "\nSuccessfully configured the backend %q! Tether will use it unless the backend configuration changes.\n", want.Type)
		return -1
	}
	from, err := backend.Open(ctx, stateDir, current)
	if err != nil {
		return e.errorf("cannot read the state of the backend tether init set up before: %v", err)
	}
	defer from.Close()
	if !bo.migrate {
		has, err := from.HasState(ctx)
		if err != nil {
			return e.errorf("%v", err)
		}
		if has || stored != nil {
			what := "Backend configuration changed"
			if stored == nil {
				what = "Existing state found"
			}
			return e.errorf("%s: the state is in %s, and the configuration now chooses the %q backend. Run tether init -migrate-state to move the state there, or tether init -reconfigure to use the new backend as it is, leaving the state behind", what, from.Describe(), want.Type)
		}
	}
	to, err := backend.Open(ctx, stateDir, want)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer to.Close()
	if bo.migrate {
		moved, err := backend.Migrate(ctx, from, to)
		if err != nil {
			return e.errorf("cannot migrate the state: %v; nothing was changed: the state is still in %s", err, from.Describe())
		}
		// The record is written before the old copy is set aside: a run
		// killed between the two leaves both copies, never none.
		if err := backend.WriteSettings(stateDir, want); err != nil {
			return e.errorf("%v", err)
		}
		aside, err := from.SetAside()
		if err != nil {
			return e.errorf("the state was copied to %s, but setting the old copy aside failed: %v", to.Describe(), err)
		}
		fmt.Fprintf(e.stdout, "Migrated the state of %d workspace(s) (%s) from %s to %s.\n", len(moved), strings.Join(moved, ", "), from.Describe(), to.Describe())
		if aside != "" {
			fmt.Fprintf(e.stdout, "The local state files were moved to %s.\n", aside)
		}
	} else if err := backend.WriteSettings(stateDir, want); err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintf(e.stdout, "\nSuccessfully configured the backend %q! Tether will use it unless the backend configuration changes.\n", want.Type)
	return -1
}

// finishSetAside sets aside the local state files that a migration to the
// backend s left in .tether when it was killed after recording s and
// before setting them aside, once s is found to hold all they hold:
// otherwise a later migration back would find them in its way. Files
// that differ are left alone: they may be the only copy of something.
func (e *env) finishSetAside(ctx context.Context, s backend.Settings) int {
	if s.Type == "local" {
		return -1
	}
	local, err := backend.Open(ctx, stateDir, backend.Local)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer local.Close()
	if has, err := local.HasState(ctx); err != nil || !has {
		if err != nil {
			return e.errorf("%v", err)
		}
		return -1
	}
	b, err := backend.Open(ctx, stateDir, s)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer b.Close()
	copied, err := backend.Copied(ctx, local, b)
	if err != nil {
		return e.errorf("%v", err)
	}
	if !copied {
		return -1 // left behind on purpose (init -reconfigure), or the only copy
	}
	aside, err := local.SetAside()
	if err != nil {
		return e.errorf("%s holds the same state as %s, but setting it aside failed: %v", local.Describe(), b.Describe(), err)
	}
	fmt.Fprintf(e.stdout, "The local state files, a copy of what %s holds left by an interrupted migration, were moved to %s.\n", b.Describe(), aside)
	return -1
}

// checkBackend connects to the backend, so that init reports a wrong
// connection string or a server that is down.
func (e *env) checkBackend(ctx context.Context, s backend.Settings) int {
	b, err := backend.Open(ctx, stateDir, s)
	if err != nil {
		return e.errorf("%v", err)
	}
	b.Close()
	return -1
}
