package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/tfstate"
)

// terraformBackendPointer is where Terraform's init records the backend a
// folder's state is kept in (its "backend" object: type and settings).
var terraformBackendPointer = filepath.Join(".terraform", terraformStateFile)

// unadopted is Terraform state a plan must not ignore: where it is, and
// how Tether takes it over.
type unadopted struct {
	where, hint string
}

// takeOverByInit is the hint for the state init takes over itself.
const takeOverByInit = "Run tether init to take Terraform's state over (or move it aside to leave it to Terraform)"

// unadoptedTerraform finds the state Terraform keeps for workspace ws of
// the folder when that state records something and Tether's workspace
// records nothing: a plan there would create again what Terraform
// already made, so plan and up refuse until init has taken it over. It
// returns nil when there is none. Tether's own state is read only when
// Terraform's is found, so that the usual plan pays for a stat or two.
func (e *env) unadoptedTerraform(ctx context.Context, b *backend.Backend, ws string) (*unadopted, error) {
	u, err := terraformStateOf(ctx, b, ws)
	if u == nil || err != nil {
		return nil, err
	}
	snap, err := b.LoadState(ctx, ws)
	if snap == nil || err != nil {
		return u, err
	}
	if len(snap.Objects)+len(snap.Outputs) > 0 {
		// init leaves Terraform's state alone here, with a warning: the
		// user chose which state to keep (tether state push replaces
		// Tether's).
		return nil, nil
	}
	return u, nil
}

// terraformStateOf names the state Terraform keeps for workspace ws when
// it records something: its local backend's file, a row of its pg backend
// beside Tether's, or the backend .terraform/terraform.tfstate names when
// that is not the one Tether uses, whose state Tether cannot look into.
func terraformStateOf(ctx context.Context, b *backend.Backend, ws string) (*unadopted, error) {
	path := terraformStateFile
	if ws != backend.DefaultWorkspace {
		path = filepath.Join(terraformWorkspaceDir, ws, terraformStateFile)
	}
	hint := takeOverByInit
	ptr, err := readBackendPointer()
	if err != nil {
		return nil, err
	}
	switch {
	case ptr.Type == "local" && ptr.Config.Path != "" && ws == backend.DefaultWorkspace:
		// init looks for terraform.tfstate only.
		path = ptr.Config.Path
		hint = fmt.Sprintf("Copy it into Tether's state with: tether state push %s", path)
	case ptr.Type != "" && ptr.Type != "local" && ptr.Type != b.Settings.Type:
		return &unadopted{
			where: fmt.Sprintf("the %q backend that %s names", ptr.Type, terraformBackendPointer),
			hint:  "Copy Terraform's state into Tether's with terraform state pull > FILE and tether state push FILE, or remove .terraform/terraform.tfstate if that state is no longer in use",
		}, nil
	}
	if f, err := readTerraformFile(path); err != nil || (f != nil && !f.Empty()) {
		return &unadopted{where: path, hint: hint}, err
	}
	names, err := b.TerraformWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if n != ws {
			continue
		}
		ts, err := b.TerraformState(ctx, ws)
		if err != nil || ts == nil {
			return nil, err
		}
		defer ts.Release()
		f, err := tfstate.Read(bytes.NewReader(ts.Data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", ts.Where, err)
		}
		if !f.Empty() {
			return &unadopted{where: ts.Where, hint: takeOverByInit}, nil
		}
	}
	return nil, nil
}

// backendPointer is the part of .terraform/terraform.tfstate that says
// where Terraform keeps the state.
type backendPointer struct {
	Type   string `json:"type"`
	Config struct {
		Path string `json:"path"`
	} `json:"config"`
}

// readBackendPointer reads .terraform/terraform.tfstate; none is the zero
// pointer (Terraform's local backend with its default path).
func readBackendPointer() (backendPointer, error) {
	data, err := os.ReadFile(terraformBackendPointer)
	if errors.Is(err, os.ErrNotExist) {
		return backendPointer{}, nil
	}
	if err != nil {
		return backendPointer{}, err
	}
	var doc struct {
		Backend *backendPointer `json:"backend"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return backendPointer{}, fmt.Errorf("%s: %v", terraformBackendPointer, err)
	}
	if doc.Backend == nil {
		return backendPointer{}, nil
	}
	return *doc.Backend, nil
}

// refuseUnadopted stops plan and up in a folder whose Terraform state
// init has not taken over, leaving every state as it is.
func (e *env) refuseUnadopted(ctx context.Context, b *backend.Backend, ws string) bool {
	u, err := e.unadoptedTerraform(ctx, b, ws)
	if err != nil {
		e.errorf("%v", err)
		return true
	}
	if u == nil {
		return false
	}
	e.errorf("Terraform state not taken over: %s records this folder's infrastructure, and Tether's state records nothing, so a plan would create it all again. %s", u.where, u.hint)
	return true
}
