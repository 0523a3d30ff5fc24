package provider

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Provider is implemented by every provider the engine can use: the
// built-in one in process, and plugin binaries through a protocol client.
//
// Values passed in and out are unmarked cty values conforming to the implied
// type of the relevant schema block. Implementations must be safe for
// concurrent use once configured: the engine calls them from many goroutines.
type Provider interface {
	GetSchema() (*Schema, hcl.Diagnostics)

	ValidateProviderConfig(config cty.Value) hcl.Diagnostics
	ValidateResourceConfig(typeName string, config cty.Value) hcl.Diagnostics
	ValidateDataSourceConfig(typeName string, config cty.Value) hcl.Diagnostics
	ValidateEphemeralConfig(typeName string, config cty.Value) hcl.Diagnostics

	ConfigureProvider(ctx context.Context, config cty.Value) hcl.Diagnostics

	UpgradeResourceState(ctx context.Context, req UpgradeRequest) UpgradeResponse
	ReadResource(ctx context.Context, req ReadRequest) ReadResponse
	PlanResourceChange(ctx context.Context, req PlanRequest) PlanResponse
	ApplyResourceChange(ctx context.Context, req ApplyRequest) ApplyResponse
	ImportResourceState(ctx context.Context, req ImportRequest) ImportResponse
	ReadDataSource(ctx context.Context, req ReadDataRequest) ReadDataResponse

	// OpenEphemeral, RenewEphemeral and CloseEphemeral serve ephemeral
	// resources: objects, such as a short-lived credential, that exist
	// only while one command runs. The engine opens one when a value that
	// needs it is evaluated, renews it when the provider asks to, and
	// closes every one it opened before the command ends. Their values
	// are never recorded.
	OpenEphemeral(ctx context.Context, req OpenEphemeralRequest) OpenEphemeralResponse
	RenewEphemeral(ctx context.Context, req RenewEphemeralRequest) RenewEphemeralResponse
	CloseEphemeral(ctx context.Context, req CloseEphemeralRequest) hcl.Diagnostics

	// MoveResourceState converts an object recorded for one resource type
	// (of this provider or another) into an object of the resource type
	// req.TargetTypeName of this provider, for a moved block whose from
	// and to have different types. It is called on the provider of the
	// target, before that object is refreshed, and touches nothing in the
	// real world.
	//
	// An implementation must answer a move it does not support, including
	// a source type it does not know, with an error diagnostic that names
	// both types and a null TargetState; it must not guess. On success,
	// TargetState is a known, non-null value of the target type's current
	// schema, so that it needs no upgrade.
	MoveResourceState(ctx context.Context, req MoveRequest) MoveResponse

	// Close releases whatever the provider holds (a plugin process, say).
	Close() error
}

// PurePlanner is implemented by a provider served in process whose plan
// of some resource types is a pure function of the request: the same
// PlanRequest always gets the same PlanResponse, and asking has no effect
// anywhere. Terraform plans each instance again during apply; for such a
// type, when the request would be the one the plan already made, the
// engine takes the plan's answer instead of asking again. A provider
// reached through the plugin protocol never implements it: whoever wrote
// it must see every call Terraform makes.
type PurePlanner interface {
	PurePlan(typeName string) bool
}

// UpgradeRequest asks the provider to bring a stored object, written by
// schema version Version, up to its current schema.
type UpgradeRequest struct {
	TypeName string
	Version  int64
	// RawStateJSON is the object as stored, in Terraform's JSON state
	// encoding of the schema that wrote it. It never changes once given:
	// the value a provider answers with may hold parts of it (the
	// built-in provider's strings are its bytes).
	RawStateJSON []byte
}

type UpgradeResponse struct {
	UpgradedState cty.Value
	Diagnostics   hcl.Diagnostics
}

// ReadRequest refreshes a managed object from the real world. A response
// with a null NewState means the object no longer exists.
type ReadRequest struct {
	TypeName   string
	PriorState cty.Value
	Private    []byte
}

type ReadResponse struct {
	NewState    cty.Value
	Private     []byte
	Diagnostics hcl.Diagnostics
	// Deferred, when not empty, says why the provider cannot read the
	// object yet; NewState is then the prior state.
	Deferred string
}

// PlanRequest asks what applying Config to PriorState would produce.
// PriorState is null for a create; ProposedNewState is null for a destroy.
// ProposedNewState is the engine's merge of Config with PriorState's computed
// values (see ProposedNew), which the provider may refine.
type PlanRequest struct {
	TypeName         string
	PriorState       cty.Value
	ProposedNewState cty.Value
	Config           cty.Value
	PriorPrivate     []byte
}

type PlanResponse struct {
	// PlannedState holds unknown values for attributes known only after
	// apply.
	PlannedState cty.Value
	// RequiresReplace lists the attributes whose change forces the object
	// to be destroyed and created again.
	RequiresReplace []cty.Path
	PlannedPrivate  []byte
	Diagnostics     hcl.Diagnostics
	// LegacyTypeSystem is set by providers written with Terraform's legacy
	// SDK, whose plans may not follow the protocol's rules exactly; the
	// engine then tolerates a planned value that differs from the
	// configuration, as Terraform does.
	LegacyTypeSystem bool
	// Deferred, when not empty, says why the provider cannot plan the
	// change yet (its configuration, or the resource's, is not known):
	// the engine plans it in a later round. PlannedState is then ignored.
	Deferred string
}

// ApplyRequest carries out a planned change. PlannedState is null for a
// destroy, PriorState is null for a create.
type ApplyRequest struct {
	TypeName       string
	PriorState     cty.Value
	PlannedState   cty.Value
	Config         cty.Value
	PlannedPrivate []byte
}

type ApplyResponse struct {
	// NewState is null after a successful destroy. On error it is the
	// object as far as it got (null if nothing was created).
	NewState    cty.Value
	Private     []byte
	Diagnostics hcl.Diagnostics
	// LegacyTypeSystem is set by providers written with Terraform's legacy
	// SDK: the engine then tolerates a new state that differs from the
	// plan, as Terraform does.
	LegacyTypeSystem bool
}

type ImportRequest struct {
	TypeName string
	ID       string
}

type ImportedResource struct {
	TypeName string
	State    cty.Value
	Private  []byte
}

type ImportResponse struct {
	Imported    []ImportedResource
	Diagnostics hcl.Diagnostics
}

// MoveRequest is an object recorded for SourceTypeName, as stored, to be
// converted into an object of TargetTypeName. The source may belong to
// another provider, whose schema this one need not know: the object comes
// as raw JSON, and SourceSchemaVersion says which version of the source
// type's schema wrote it (it is not upgraded first).
type MoveRequest struct {
	// SourceProviderAddress is the source provider's address, such as
	// "registry.terraform.io/hashicorp/random".
	SourceProviderAddress string
	SourceTypeName        string
	SourceSchemaVersion   int64
	// SourceStateJSON is the object in Terraform's JSON state encoding of
	// the schema that wrote it.
	SourceStateJSON []byte
	// SourcePrivate is the source provider's private data, verbatim.
	SourcePrivate  []byte
	TargetTypeName string
}

// MoveResponse is the converted object. TargetState is null when the
// diagnostics carry an error.
type MoveResponse struct {
	TargetState   cty.Value
	TargetPrivate []byte
	Diagnostics   hcl.Diagnostics
}

type ReadDataRequest struct {
	TypeName string
	Config   cty.Value
}

type ReadDataResponse struct {
	State       cty.Value
	Diagnostics hcl.Diagnostics
	// Deferred, when not empty, says why the provider cannot read the
	// data source yet.
	Deferred string
}

type OpenEphemeralRequest struct {
	TypeName string
	Config   cty.Value
}

type OpenEphemeralResponse struct {
	Result cty.Value
	// Private is the provider's own data about what it opened, handed
	// back to RenewEphemeral and CloseEphemeral.
	Private []byte
	// RenewAt, when not zero, is when the provider asks to be called to
	// renew the object, should the command still need it then.
	RenewAt     time.Time
	Diagnostics hcl.Diagnostics
	// Deferred, when not empty, says why the provider cannot open the
	// object yet; Result is then unknown.
	Deferred string
}

type RenewEphemeralRequest struct {
	TypeName string
	Private  []byte
}

type RenewEphemeralResponse struct {
	Private     []byte
	RenewAt     time.Time
	Diagnostics hcl.Diagnostics
}

type CloseEphemeralRequest struct {
	TypeName string
	Private  []byte
}
