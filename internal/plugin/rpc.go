package plugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/ctytype"
	"github.com/tetherhq/tether/internal/protocol"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// rpcClient is one major version of the plugin protocol, cut down to the
// calls the Client makes. Both versions answer in terraform-plugin-go's
// public protocol 6 types, so that internal/protocol's converters turn
// either into cty values and hcl diagnostics: for these calls version 5 is
// version 6 with some RPCs renamed and no nested attributes, so nothing is
// lost on the way. (rpc6 in v6.go implements it; rpc5 is generated.)
//
// Requests carry only what the client sets; responses carry only what it
// reads. The client capabilities that some requests carry are the
// constants in client.go, which the implementations send themselves. An
// error is a transport failure: whatever the provider itself reports
// arrives as diagnostics.
type rpcClient interface {
	// GetProviderSchema returns the response in the protocol's own
	// encoding, undecoded, for SchemaFromWire (and the schema cache, which
	// keeps it as sent).
	GetProviderSchema(ctx context.Context) (wire []byte, err error)
	// SchemaFromWire decodes a GetProviderSchema response but for the
	// schemas of types, which wait for their first use (see wireSchema).
	SchemaFromWire(wire []byte) (*wireSchema, error)
	ValidateProviderConfig(context.Context, *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error)
	// The two type validations answer with nothing but diagnostics, and
	// take the same arguments, so they share a shape.
	ValidateResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error)
	ValidateDataResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error)
	ValidateEphemeralResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error)
	ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error)
	UpgradeResourceState(context.Context, *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error)
	ReadResource(context.Context, *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error)
	PlanResourceChange(context.Context, *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error)
	ApplyResourceChange(context.Context, *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error)
	ImportResourceState(context.Context, *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error)
	ReadDataSource(context.Context, *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error)
	// MoveResourceState fails with codes.Unimplemented for providers older
	// than moves across resource types (Terraform 1.8).
	MoveResourceState(context.Context, *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error)
	// The ephemeral resource calls fail with codes.Unimplemented for
	// providers older than ephemeral resources (Terraform 1.10); such a
	// provider declares none, so they are not called.
	OpenEphemeralResource(context.Context, *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error)
	RenewEphemeralResource(context.Context, *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error)
	CloseEphemeralResource(context.Context, *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error)
	CallFunction(context.Context, *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error)
	StopProvider(context.Context) error
}

// typeFromJSON decodes an attribute type as the protocol sends it. The
// encoding is cty's own (Terraform decodes it with cty), so cty decodes it
// here too; tftypes' parser is deprecated for use outside its module.
//
// Decoded types are remembered: a large provider's schema sends the same
// types again and again (the AWS provider: 86,705 attributes, 505 distinct
// types), and decoding them was the better part of reading it. A
// tftypes.Type is never modified, so one value serves every attribute.
func typeFromJSON(b []byte) (tftypes.Type, error) {
	if ty, ok := decodedTypes.Load(string(b)); ok {
		return ty.(tftypes.Type), nil
	}
	ty, ok := ctytype.FromJSON(b)
	if !ok {
		if err := ctyTypeFromJSON(&ty, b); err != nil {
			return nil, fmt.Errorf("invalid type %q: %w", b, err)
		}
	}
	tfty, err := protocol.TypeToTF(ty)
	if err != nil {
		return nil, err
	}
	if len(b) <= maxRememberedType {
		decodedTypes.Store(string(b), tfty)
	}
	return tfty, nil
}

// decodedTypes maps a type's JSON to its tftypes.Type. It grows with the
// distinct types of the providers a process reads (under a megabyte for
// AWS); the rare very long types are not kept.
var decodedTypes sync.Map

const maxRememberedType = 4096

// schemaDiag reports a schema the client cannot use. The type it is about
// is left out of the schema; the rest stays usable.
func schemaDiag(what string, err error) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Invalid provider schema",
		Detail:   fmt.Sprintf("The provider declared a schema for %s that cannot be decoded: %s.", what, err),
	}
}

// timeFrom is a protocol timestamp as a time, zero when absent.
func timeFrom(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}
