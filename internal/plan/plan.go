package plan

import (
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/provider"
)

// Action is what will happen to one resource instance or output.
type Action int

const (
	NoOp Action = iota
	Create
	Read // a data source read during apply
	Update
	// DeleteThenCreate and CreateThenDelete are the two orders of a
	// replacement; CreateThenDelete comes from create_before_destroy.
	DeleteThenCreate
	CreateThenDelete
	Delete
	// Forget removes the object from state and leaves it be: a removed
	// block with destroy = false.
	Forget
	// Open and Close are what happens to an ephemeral resource instance
	// in each walk: it is opened when its value is needed and closed when
	// the walk ends. They appear in progress events, never in a plan.
	Open
	Close
)

func (a Action) String() string {
	switch a {
	case NoOp:
		return "no-op"
	case Create:
		return "create"
	case Read:
		return "read"
	case Update:
		return "update"
	case DeleteThenCreate, CreateThenDelete:
		return "replace"
	case Delete:
		return "delete"
	case Forget:
		return "forget"
	case Open:
		return "open"
	case Close:
		return "close"
	}
	return "invalid"
}

// IsReplace reports whether the action destroys and creates the object.
func (a Action) IsReplace() bool { return a == DeleteThenCreate || a == CreateThenDelete }

// Mode is whether a change is for a managed resource or a data source.
type Mode int

const (
	Managed Mode = iota
	Data
)

// ResourceChange is the planned change for one resource instance.
//
// Before and After are objects of the resource type's schema. After holds
// unknown values for what is known only after apply. Both carry
// marks.Sensitive on the paths that must not be shown.
type ResourceChange struct {
	Addr     string
	Mode     Mode
	Type     string
	Provider string
	Action   Action

	Before cty.Value
	After  cty.Value
	// Schema is the resource type's schema, the one Before and After were
	// decoded with. A value alone cannot tell a nested block from an
	// attribute of the same type, and Terraform writes them differently
	// (`part { ... }`, not `part = [{ ... }]`), so the ui needs it. It is
	// nil only where no schema was at hand; the ui then shows every value
	// as an attribute.
	Schema *provider.Block

	// RequiresReplace lists the attributes whose change forces a
	// replacement.
	RequiresReplace []cty.Path
	// Reason explains an action that the configuration alone does not, e.g.
	// "the file was deleted outside Tether" or "it depends on tether_file.a,
	// which has changes pending".
	Reason string
	// Tainted is set when the object is replaced because it is tainted:
	// its create failed part way, or `tether taint` marked it.
	Tainted bool
	// Requested is set on a replacement that -replace asked for.
	Requested bool
	// Importing is the import id of an object an import adopts; Action
	// is then what happens to it after the import (NoOp, Update, ...).
	Importing string
}

// OutputChange is the planned change for one root output.
type OutputChange struct {
	Name      string
	Action    Action
	Before    cty.Value
	After     cty.Value
	Sensitive bool
}

// Plan is everything a plan proposes.
type Plan struct {
	// Destroy is set for a plan made by `tether destroy`.
	Destroy bool
	// Timestamp is when the plan was made: plantimestamp() while planning
	// and applying it.
	Timestamp time.Time
	// Drift lists objects that changed outside Tether since the last apply,
	// as found by refresh, with Before as recorded and After as read.
	Drift   []*ResourceChange
	Changes []*ResourceChange
	Outputs []*OutputChange
	// Deferred lists what cannot be planned in this round because the
	// number of instances (count, for_each) depends on values known only
	// after apply. `up` applies the rest, then plans these.
	Deferred []*DeferredChange
	// Moved lists recorded objects that moved blocks rename.
	Moved []*Move
	// Targeted is set when -target narrowed the plan: it may not hold
	// every change the configuration asks for.
	Targeted bool
	// RefreshOnly is set for a plan made with -refresh-only: it records
	// what refresh found and changes nothing else.
	RefreshOnly bool
	// Upgraded lists recorded objects written by an older schema version
	// of their resource type: applying the plan records them upgraded,
	// even when nothing changes.
	Upgraded []string
	// Checks are the results of the configuration's conditions, check
	// blocks and validation rules as planned; nil when it has none.
	Checks []checks.Result
	// Data lists how applying the plan updates the data source results
	// state records, which is no change: each result read during the
	// plan, with Before what state records (null for nothing) and Action
	// NoOp, Create or Update, and each recorded result that applying
	// forgets (Delete) because its data source left the configuration,
	// or for a destroy. A read left for apply is a change instead.
	Data []*ResourceChange
}

// DeferredChange is a resource, data source or module whose instances are
// not known in this round.
type DeferredChange struct {
	// Addr ends in [*] for a repeated node: `tether_file.x[*]`.
	Addr string
	// WaitingOn names the resource whose result decides the instances.
	WaitingOn string
	// Existing is set when instances are already recorded; they are left
	// as they are until the node can be planned.
	Existing bool
	Module   bool
	// ByProvider is set when the provider itself deferred the change,
	// saying why in WaitingOn, rather than Tether for want of a value.
	ByProvider bool
}

// Reason is why the change is deferred, in the words of Terraform's JSON
// plan (deferred_changes): provider_config_unknown when the provider
// deferred it, instance_count_unknown when its count or for_each waits,
// resource_config_unknown otherwise.
func (d DeferredChange) Reason() string {
	switch {
	case d.ByProvider:
		return "provider_config_unknown"
	case strings.HasSuffix(d.Addr, "[*]"):
		return "instance_count_unknown"
	}
	return "resource_config_unknown"
}

// Move is one recorded object (or module instance) renamed by a moved
// block, without destroying it.
type Move struct {
	From, To string
}

// Summary counts the changes the way Terraform's summary line does: a
// replacement counts once to add and once to destroy.
func (p *Plan) Summary() (add, change, destroy int) {
	for _, c := range p.Changes {
		if c.Mode != Managed {
			continue
		}
		switch {
		case c.Action == Create:
			add++
		case c.Action == Update:
			change++
		case c.Action == Delete:
			destroy++
		case c.Action.IsReplace():
			add++
			destroy++
		}
	}
	return
}

// UpdatesState reports whether applying the plan writes state even when
// it changes nothing: refresh found recorded objects gone, objects are
// recorded in an older schema version, or data source results differ from
// those recorded. Terraform's apply keeps all three.
func (p *Plan) UpdatesState() bool {
	if p.forgets() || len(p.Upgraded) > 0 {
		return true
	}
	for _, d := range p.Data {
		if d.Action != NoOp {
			return true
		}
	}
	return false
}

func (p *Plan) forgets() bool {
	for _, d := range p.Drift {
		if d.Action == Delete {
			return true
		}
	}
	return false
}

// Imports counts the objects the plan imports.
func (p *Plan) Imports() int {
	n := 0
	for _, c := range p.Changes {
		if c.Importing != "" {
			n++
		}
	}
	return n
}

// HasChanges reports whether applying the plan would change anything:
// a resource, or an output's value.
func (p *Plan) HasChanges() bool {
	if p.RefreshOnly {
		return len(p.Drift) > 0
	}
	for _, c := range p.Changes {
		// A read during apply is a change, as in Terraform: a check
		// block's data source, read again to verify the check, is one.
		if c.Action != NoOp || c.Importing != "" {
			return true
		}
	}
	for _, o := range p.Outputs {
		if o.Action != NoOp {
			return true
		}
	}
	return len(p.Deferred) > 0 || len(p.Moved) > 0
}

// Phase is where an operation on one resource instance stands.
type Phase int

const (
	Started Phase = iota
	Succeeded
	Failed
)

// Event reports progress while a plan is applied (or while refresh runs).
type Event struct {
	Addr    string
	Action  Action
	Phase   Phase
	Elapsed time.Duration // set when Phase is Succeeded or Failed
	// ID is a short identification of the object once known (its id
	// attribute), for "Creation complete after 1s [id=...]".
	ID  string
	Err error
	// Step is set on the events of one part of a replacement, Delete or
	// Create, which come besides the events of the whole: Terraform's
	// machine-readable UI reports the parts.
	Step Action
}

// ReasonEnabledFalse is the Reason of deleting an object whose
// lifecycle { enabled } is false (OpenTofu's wording).
const ReasonEnabledFalse = "enabled is false"

// ReasonCheck is the Reason of reading a check block's data source during
// apply: it is read again so that the check sees what apply made.
const ReasonCheck = "config will be reloaded to verify a check block"

// ReasonConfigUnknown is the Reason of reading a data source during apply
// because its configuration is not known until then.
const ReasonConfigUnknown = "its configuration depends on values not known until apply"
