package s3state

import (
	"context"
	"fmt"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// TerraformState is Terraform's state document at a workspace's path.
type TerraformState struct {
	Data  []byte
	Where string

	b        *Backend
	path     string
	etag     string
	asideKey string
}

// TerraformState returns Terraform's state document for workspace ws, nil
// when the path holds Tether's state or nothing. It is read without a
// lock: init takes the state's lock (Terraform's too) before it commits
// what it read, and SetAside moves the document only if it is still the
// one read.
func (b *Backend) TerraformState(ctx context.Context, ws string) (*TerraformState, error) {
	p := b.path(ws)
	body, etag, err := b.get(ctx, p)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if isTether, _, err := statedoc.Sniff(body); err != nil {
		return nil, &CorruptError{Object: b.objectName(p), Reason: err.Error()}
	} else if isTether {
		return nil, nil
	}
	return &TerraformState{Data: body, Where: fmt.Sprintf("Terraform's state of workspace %q at %s", ws, b.objectName(p)), b: b, path: p, etag: etag}, nil
}

// SetAside moves Terraform's document to PATH.terraform-adopted-TIMESTAMP:
// a copy made only if the document is still the one read, then the
// original deleted. Tether's own document is written at the path when its
// lock is released.
func (t *TerraformState) SetAside(ctx context.Context) (string, error) {
	aside, err := t.b.setAside(ctx, t.path, t.etag)
	if err != nil {
		return "", err
	}
	if err := t.b.delete(ctx, t.path); err != nil {
		return "", fmt.Errorf("%s was copied to %s, but deleting it failed: %w", t.Where, aside, err)
	}
	return aside, nil
}
