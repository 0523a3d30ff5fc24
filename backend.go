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
type Backend = sdk.Backend

// PG keeps state in a PostgreSQL schema, as Terraform's pg backend does.
// A setting left empty comes from -backend-config or, failing that, the
// environment: PG_CONN_STR and PG_SCHEMA_NAME. Prefer the environment (or
// PGPASSWORD, ~/.pgpass) for a password: init records the settings it was
// given in .tether/backend.json.
type PG = sdk.PG

// LocalBackend keeps state in SQLite files beside the program, as with no
// backend at all: .tether/state.db, and .tether/workspaces/NAME/state.db
// for workspace NAME. Path and WorkspaceDir move them, as the arguments of
// Terraform's local backend do.
type LocalBackend = sdk.LocalBackend
