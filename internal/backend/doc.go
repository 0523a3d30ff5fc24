// Package backend decides where a configuration's state is kept and opens
// it there: SQLite files under .tether/ (the local backend) or a PostgreSQL
// schema (the pg backend), chosen with Terraform's backend block and
// settled by `tether init`, which records its choice in .tether/backend.json
// as Terraform does in .terraform/terraform.tfstate.
//
// A backend holds workspaces, each a separate state: on the local backend
// the default workspace is .tether/state.db and workspace NAME is
// .tether/workspaces/NAME/state.db (Terraform's terraform.tfstate.d/NAME/);
// on PostgreSQL they are rows of one schema. The workspace in use is kept
// in .tether/environment, as in .terraform/environment, unless
// TF_WORKSPACE names another.
package backend
