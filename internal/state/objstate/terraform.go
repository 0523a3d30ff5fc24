package objstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// TerraformState is Terraform's state document at a workspace's path.
type TerraformState struct {
	Data  []byte
	Where string

	b       *Backend
	path    string
	version string
}

// TerraformState returns Terraform's state document for workspace ws, nil
// when the path holds Tether's state or nothing. It is read without a
// lock: init takes the state's lock (Terraform's too) before it commits
// what it read, and SetAside moves the document only if it is still the
// one read.
func (b *Backend) TerraformState(ctx context.Context, ws string) (*TerraformState, error) {
	p := b.Path(ws)
	o, err := b.get(ctx, p)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if isTether, _, err := statedoc.Sniff(o.Body); err != nil {
		return nil, &CorruptError{Object: b.Name(p), Reason: err.Error()}
	} else if isTether {
		return nil, nil
	}
	return &TerraformState{Data: o.Body, Where: fmt.Sprintf("Terraform's state of workspace %q at %s", ws, b.Name(p)), b: b, path: p, version: o.Version}, nil
}

// SetAside moves Terraform's document to PATH.terraform-adopted-TIMESTAMP:
// a copy made only if the document is still the one read, then the
// original deleted. Tether's own document is written at the path when its
// lock is released.
func (t *TerraformState) SetAside(ctx context.Context) (string, error) {
	aside, err := t.b.setAside(ctx, t.path, t.version)
	if err != nil {
		return "", err
	}
	if err := t.b.deleteAll(ctx, []string{t.path}); err != nil {
		return "", fmt.Errorf("%s was copied to %s, but deleting it failed: %w", t.Where, aside, err)
	}
	return aside, nil
}
