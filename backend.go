package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Backend is where a program's state is kept: LocalBackend (the default)
// or PG. It is the Go form of Terraform's `terraform { backend "TYPE" {}
// }` block, with its rules: `init` sets it up and records it (with
// -backend-config settings over the program's), `plan` and `up` stop with
// "Backend initialization required" at the line that chose it once it
// changes, and `init -migrate-state` moves every workspace to a new one.
type Backend interface {
	// impl is the implementation's backend of the same settings.
	impl() sdk.Backend
}

// PG keeps state in a PostgreSQL schema, as Terraform's pg backend does.
// A setting left empty comes from -backend-config or, failing that, the
// environment: PG_CONN_STR and PG_SCHEMA_NAME. Prefer the environment (or
// PGPASSWORD, ~/.pgpass) for a password: init records the settings it was
// given in .tether/backend.json.
type PG struct {
	// ConnStr is the connection string, a postgres:// URL or key=value
	// pairs.
	ConnStr string
	// SchemaName is the schema holding the state; terraform_remote_state
	// when neither this nor PG_SCHEMA_NAME says.
	SchemaName string
	// SkipSchemaCreation uses a schema that exists, without creating it.
	SkipSchemaCreation bool
}

func (p PG) impl() sdk.Backend { return sdk.PG(p) }

// LocalBackend keeps state in SQLite files beside the program, as with no
// backend at all: .tether/state.db, and .tether/workspaces/NAME/state.db
// for workspace NAME. Path and WorkspaceDir move them, as the arguments of
// Terraform's local backend do.
type LocalBackend struct {
	// Path is the default workspace's state file.
	Path string
	// WorkspaceDir is the folder of the other workspaces' folders.
	WorkspaceDir string
}

func (l LocalBackend) impl() sdk.Backend { return sdk.LocalBackend(l) }
