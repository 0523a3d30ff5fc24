package sdk

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
)

// Backend is where a program's state is kept: LocalBackend (the default)
// or PG. It is the Go form of Terraform's `terraform { backend "TYPE" {}
// }` block, with its rules: `init` sets it up and records it (with
// -backend-config settings over the program's), `plan` and `up` stop with
// "Backend initialization required" at the line that chose it once it
// changes, and `init -migrate-state` moves every workspace to a new one.
type Backend interface {
	backend(at hcl.Range) *config.Backend
}

// PG is tether.PG, field for field: the root converts one to the other
// (the conversion stops compiling if the two part). The fields are
// documented there.
type PG struct {
	ConnStr            string
	SchemaName         string
	SkipSchemaCreation bool
}

func (p PG) backend(at hcl.Range) *config.Backend {
	skip := ""
	if p.SkipSchemaCreation {
		skip = "true"
	}
	return backendDecl("pg", at, map[string]string{"conn_str": p.ConnStr, "schema_name": p.SchemaName, "skip_schema_creation": skip})
}

// backendDecl is a backend declared at at with the settings that are not
// empty: an empty one is left to -backend-config and the environment.
func backendDecl(typ string, at hcl.Range, settings map[string]string) *config.Backend {
	b := &config.Backend{Type: typ, Settings: map[string]string{}, Ranges: map[string]hcl.Range{}, DeclRange: at}
	for k, v := range settings {
		if v != "" {
			b.Settings[k], b.Ranges[k] = v, at
		}
	}
	return b
}

// LocalBackend is tether.LocalBackend, field for field: the root converts one to the other
// (the conversion stops compiling if the two part). The fields are
// documented there.
type LocalBackend struct {
	Path         string
	WorkspaceDir string
}

func (l LocalBackend) backend(at hcl.Range) *config.Backend {
	return backendDecl("local", at, map[string]string{"path": l.Path, "workspace_dir": l.WorkspaceDir})
}

// Backend chooses where the program's state is kept (LocalBackend unless
// a program says otherwise). It is called once, while the program's
// function runs, and the same way on every run: the choice is read each
// time the program runs a command that loads it (init, plan, up, destroy,
// import, console, graph) and compared with what init recorded. Commands
// that do not run the program's function (workspace, state, output, show)
// use the backend init recorded. A second call, a nil backend, or a call
// made after the function returned is an error at the call.
func (s *Stack) Backend(b Backend) {
	pos := caller(1)
	if s == nil {
		scopeOf(nil, pos, "Backend")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.returned:
		s.report(diagAt(pos, "Called after the program's function returned", "Backend was called after the program's function returned. Choose the backend while the function given to tether.Main runs."))
	case b == nil:
		s.report(diagAt(pos, "Nil backend", "Backend was given nil: give it tether.LocalBackend{} or tether.PG{...}."))
	case s.backend != nil:
		s.report(diagAt(pos, "Backend chosen twice", "The stack's backend was already chosen at %s.", posString(s.backend.DeclRange)))
	default:
		s.backend = b.backend(pos)
	}
}

// Workspace is the name of the workspace the command runs in, what
// terraform.workspace is in HCL: "default" unless `tether workspace
// select` or TF_WORKSPACE chose another. A program uses it to keep the
// workspaces' objects apart (file names, prefixes). The closures it
// deploys see the same name when they run.
func (s *Stack) Workspace() string {
	if s == nil || s.in.Workspace == "" {
		return "default"
	}
	return s.in.Workspace
}
