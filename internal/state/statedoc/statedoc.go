package statedoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/state"
)

// FormatVersion is the version of the document this build writes and the
// newest it reads.
const FormatVersion = 1

// Document is the state of one workspace.
type Document struct {
	Format  int    `json:"tether_state"`
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
	// Journal is, on a store that journals, the sequence number of the
	// last journal object folded in.
	Journal uint64                   `json:"journal,omitempty"`
	Objects map[string]*state.Object `json:"objects"`
	Outputs map[string]*state.Output `json:"outputs"`
	Checks  []byte                   `json:"checks,omitempty"`
	// Workspaces are, in the default workspace's document of a store
	// that cannot list (HTTP), the other workspaces.
	Workspaces []string `json:"workspaces,omitempty"`
	// StateID is, there too, the state's id, which names its key.
	StateID string `json:"state_id,omitempty"`
}

// New returns an empty document with a new lineage.
func New() *Document {
	return &Document{Format: FormatVersion, Lineage: state.NewLineage(), Objects: map[string]*state.Object{}, Outputs: map[string]*state.Output{}}
}

// Encode encodes d.
func (d *Document) Encode() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // only maps, strings and bytes: cannot fail
	}
	return b
}

// Decode decodes a document Sniff said is Tether's, refusing a newer one.
func Decode(body []byte, where string) (*Document, error) {
	d := &Document{}
	if err := json.Unmarshal(body, d); err != nil {
		return nil, fmt.Errorf("%s is not a readable Tether state: %v", where, err)
	}
	if d.Format > FormatVersion {
		return nil, &NewerFormatError{Where: where, Format: d.Format}
	}
	if d.Objects == nil {
		d.Objects = map[string]*state.Object{}
	}
	if d.Outputs == nil {
		d.Outputs = map[string]*state.Output{}
	}
	return d, nil
}

// NewerFormatError is a document written by a newer Tether, which is
// neither read nor written.
type NewerFormatError struct {
	Where  string
	Format int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s was written by a newer Tether (format %d; this build reads up to %d); upgrade Tether", e.Where, e.Format, FormatVersion)
}

// Clone copies d's maps, so that changes to the copy leave d as it is.
func (d *Document) Clone() *Document {
	c := *d
	c.Objects, c.Outputs = map[string]*state.Object{}, map[string]*state.Output{}
	for k, o := range d.Objects {
		c.Objects[k] = o
	}
	for k, o := range d.Outputs {
		c.Outputs[k] = o
	}
	c.Workspaces = append([]string(nil), d.Workspaces...)
	return &c
}

// Apply applies c to d as a store's Commit does: deletions before puts.
func (d *Document) Apply(c state.Changes) {
	for _, a := range c.Delete {
		delete(d.Objects, a)
	}
	for _, o := range c.Put {
		d.Objects[o.Address] = o
	}
	for _, n := range c.DeleteOutputs {
		delete(d.Outputs, n)
	}
	for _, o := range c.PutOutputs {
		d.Outputs[o.Name] = o
	}
	if c.Checks != nil {
		d.Checks = c.Checks
		if len(c.Checks) == 0 {
			d.Checks = nil
		}
	}
	if c.Lineage != "" {
		d.Lineage, d.Serial = c.Lineage, c.Serial
	} else {
		d.Serial++
	}
}

// Snapshot is d as a store's Load returns it.
func (d *Document) Snapshot() *state.Snapshot {
	return &state.Snapshot{Objects: d.Objects, Outputs: d.Outputs, Checks: d.Checks, Lineage: d.Lineage, Serial: d.Serial}
}

// Sniff tells Tether's document from Terraform's, and whether Terraform's
// records nothing (Terraform writes one when it creates a workspace).
func Sniff(body []byte) (isTether, empty bool, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return false, false, fmt.Errorf("is not a JSON state document: %v", err)
	}
	if _, ok := top["tether_state"]; ok {
		return true, false, nil
	}
	if _, ok := top["version"]; !ok {
		return false, false, errors.New("is neither Tether's state nor Terraform's")
	}
	var tf struct {
		Resources []json.RawMessage
		Outputs   map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &tf); err != nil {
		return false, false, fmt.Errorf("is not a readable Terraform state: %v", err)
	}
	return false, len(tf.Resources) == 0 && len(tf.Outputs) == 0, nil
}

// ErrTerraformHere is matched by a *TerraformHereError.
var ErrTerraformHere = errors.New("Terraform's state is where Tether's would be")

// TerraformHereError is Load's refusal of a workspace whose place holds
// Terraform's state rather than Tether's.
type TerraformHereError struct{ Object string }

func (e *TerraformHereError) Is(target error) bool { return target == ErrTerraformHere }

func (e *TerraformHereError) Error() string {
	return fmt.Sprintf("%s holds Terraform's state, not Tether's; tether init takes it over (it asks, or -force-copy), or move it aside to leave it to Terraform", e.Object)
}

// LockInfo is a lock as Terraform records it (statemgr.LockInfo), with
// what Tether adds: Terraform reads the fields it knows and ignores the
// rest.
type LockInfo struct {
	ID        string
	Operation string
	Info      string
	Who       string
	Version   string
	Created   time.Time
	Path      string
	// TetherPID and TetherHost say which process holds it, for
	// state.HolderAlive.
	TetherPID  int    `json:",omitempty"`
	TetherHost string `json:",omitempty"`
}

// tetherVersion marks a lock Tether took.
const tetherVersion = "tether"

// NewLockInfo is the record of a lock Tether takes on path.
func NewLockInfo(info state.LockInfo, path string) LockInfo {
	return LockInfo{ID: info.ID, Operation: info.Operation, Info: fmt.Sprintf("tether pid %d on %s", info.PID, info.Host),
		Who: info.Who, Version: tetherVersion, Created: info.Created.UTC(), Path: path, TetherPID: info.PID, TetherHost: info.Host}
}

// Holder is the lock as state.LockInfo; a lock Terraform took has an
// operation that says so.
func (l LockInfo) Holder() state.LockInfo {
	h := state.LockInfo{ID: l.ID, Operation: l.Operation, Who: l.Who, Created: l.Created, PID: l.TetherPID, Host: l.TetherHost}
	if l.Version != tetherVersion {
		h.Operation = "terraform " + l.Operation
		if _, host, ok := strings.Cut(l.Who, "@"); ok {
			h.Host = host
		}
	}
	return h
}

// LockedError is the refusal of a lock, naming its holder.
func LockedError(where string, l LockInfo) *state.LockedError {
	e := &state.LockedError{Store: where, Holder: l.Holder()}
	if alive, known := state.HolderAlive(e.Holder); known && !alive {
		e.HolderGone = true
	}
	return e
}

// Commit checks c and queues it on a store's writer, for the stores that
// keep a document: it returns once the writer has written it.
func Commit(w *state.Writer[struct{}], where string, c state.Changes) error {
	if _, err := c.Prepare(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return w.Commit(c, struct{}{})
}

// CheckDelete refuses to delete a workspace that records managed
// resources, unless forced: its resources would be forgotten, not
// destroyed.
func CheckDelete(ws string, snap *state.Snapshot, force bool) error {
	n := 0
	for _, o := range snap.Objects {
		if o.Mode == state.Managed {
			n++
		}
	}
	if n > 0 && !force {
		return fmt.Errorf("workspace %q records %d resource instance(s); deleting it would forget them without destroying them. Destroy them first (tether destroy in that workspace), or delete it anyway with -force", ws, n)
	}
	return nil
}
