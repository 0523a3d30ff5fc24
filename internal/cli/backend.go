package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// programDecl is what a Go program declared when this run loaded it.
type programDecl struct {
	// backend is its Stack.Backend, nil for none.
	backend *config.Backend
}

// noteProgram keeps what a Go program declared once it is loaded: its
// backend is known only by running it.
func (e *env) noteProgram(cfg *config.Config) {
	if e.src != nil && cfg != nil {
		e.program = &programDecl{backend: cfg.Backend}
	}
}

// unloadedProgram reports whether the configuration is a Go program that
// this run has not run: a command that does not load the configuration
// (workspace, state, output, show), run by the program or by the tether
// command in its folder. Its backend declaration is unknown then, and
// what init recorded is used.
func (e *env) unloadedProgram() bool {
	if e.src != nil {
		return e.program == nil
	}
	_, isProgram := goProgramDir(nil)
	return isProgram
}

// backendBlock reads the configuration's backend block, nil for none; for
// a Go program, what its Stack.Backend declared (load it first). It
// prints what is wrong with it.
func (e *env) backendBlock(vars []varArg) (*config.Backend, bool) {
	if e.src != nil {
		if e.program == nil {
			return nil, true
		}
		return e.program.backend, true
	}
	var args []hclconfig.VarArg
	for _, v := range vars {
		args = append(args, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
	}
	b, diags := hclconfig.Backend(".", hclconfig.Options{Vars: args, Environ: os.Environ(), Files: e.parsed()})
	e.configDiagnostics(nil, diags)
	return b, !diags.HasErrors()
}

// openBackend opens the backend that tether init settled for the
// configuration in the working folder, refusing one whose backend block
// changed since, as Terraform does. A Go program not loaded in this run
// gets the backend init settled.
func (e *env) openBackend(ctx context.Context, vars []varArg) (*backend.Backend, bool) {
	if e.unloadedProgram() {
		return e.openSettledBackend(ctx, vars)
	}
	block, ok := e.backendBlock(vars)
	if !ok {
		return nil, false
	}
	settings, err := backend.Resolve(stateDir, block)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	b, err := backend.Open(ctx, stateDir, settings)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return b, true
}

// openSettledBackend opens the backend tether init last set up (local when
// it set none up), whatever the backend block says now.
func (e *env) openSettledBackend(ctx context.Context, _ []varArg) (*backend.Backend, bool) {
	settings, err := settledSettings()
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	b, err := backend.Open(ctx, stateDir, settings)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return b, true
}

// settledSettings are the settings tether init last recorded, local when
// it recorded none.
func settledSettings() (backend.Settings, error) {
	stored, err := backend.ReadSettings(stateDir)
	if err != nil || stored == nil {
		return backend.Local, err
	}
	return *stored, nil
}

// selectedWorkspace is the workspace commands use.
func (e *env) selectedWorkspace() (string, bool) {
	ws, err := backend.Selected(stateDir)
	if err != nil {
		e.errorf("%v", err)
		return "", false
	}
	return ws, true
}

// openWorkspace opens the selected workspace's state in b. With
// mustExist, a workspace with no state yet is an error instead of being
// created, for commands that only read state.
func (e *env) openWorkspace(ctx context.Context, b *backend.Backend, ws string, mustExist bool) (state.Store, bool) {
	if ok, err := b.HasWorkspace(ctx, ws); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("the selected workspace %q does not exist in %s; create it with tether workspace new %s, or select another with tether workspace select", ws, b.Describe(), ws)
		}
		e.errorf("%v", err)
		return nil, false
	}
	if mustExist {
		if ok, err := b.StateExists(ctx, ws); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("no state in %s: nothing has been applied here yet", stateDir)
			}
			e.errorf("%v", err)
			return nil, false
		}
	}
	s, err := b.State(ctx, ws)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return s, true
}

// backendKeys returns the key of the state the commands run with ctx use:
// the backend's, or tether test's own.
func (e *env) backendKeys(ctx context.Context) (*secrets.Keys, bool) {
	if dir := stateDirOf(ctx); dir != stateDir {
		k, err := secrets.Load(dir)
		if err != nil {
			e.errorf("%v", err)
			return nil, false
		}
		return k, true
	}
	b, ok := e.openBackend(ctx, nil)
	if !ok {
		return nil, false
	}
	defer b.Close()
	k, err := b.Keys()
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return k, true
}
