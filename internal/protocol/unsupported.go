package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The protocol has grown features that provider.Provider does not model.
// The schema never advertises any of them, so Terraform has no reason to
// call these; if it does anyway, it gets a diagnostic rather than a
// transport error.

var (
	_ tfprotov6.ProviderServerWithListResource = (*server)(nil)
	_ tfprotov6.ProviderServerWithActions      = (*server)(nil)
	_ tfprotov6.ProviderServerWithStateStores  = (*server)(nil)
)

func unsupported(what string) []*tfprotov6.Diagnostic {
	return errDiag("Unsupported provider operation", "This provider does not implement "+what+".")
}

func (s *server) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return &tfprotov6.UpgradeResourceIdentityResponse{Diagnostics: unsupported("resource identities")}, nil
}

func (s *server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return &tfprotov6.GenerateResourceConfigResponse{Diagnostics: unsupported("configuration generation")}, nil
}

func (s *server) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov6.ValidateEphemeralResourceConfigResponse{Diagnostics: unsupported("ephemeral resources")}, nil
}

func (s *server) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return &tfprotov6.OpenEphemeralResourceResponse{Diagnostics: unsupported("ephemeral resources")}, nil
}

func (s *server) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return &tfprotov6.RenewEphemeralResourceResponse{Diagnostics: unsupported("ephemeral resources")}, nil
}

func (s *server) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return &tfprotov6.CloseEphemeralResourceResponse{Diagnostics: unsupported("ephemeral resources")}, nil
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return &tfprotov6.ValidateListResourceConfigResponse{Diagnostics: unsupported("list resources")}, nil
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	diags := unsupported("list resources")
	return &tfprotov6.ListResourceServerStream{Results: func(yield func(tfprotov6.ListResourceResult) bool) {
		yield(tfprotov6.ListResourceResult{Diagnostics: diags})
	}}, nil
}

func (s *server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return &tfprotov6.ValidateActionConfigResponse{Diagnostics: unsupported("actions")}, nil
}

func (s *server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return &tfprotov6.PlanActionResponse{Diagnostics: unsupported("actions")}, nil
}

func (s *server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	diags := unsupported("actions")
	return &tfprotov6.InvokeActionServerStream{Events: func(yield func(tfprotov6.InvokeActionEvent) bool) {
		yield(tfprotov6.InvokeActionEvent{Type: tfprotov6.CompletedInvokeActionEventType{Diagnostics: diags}})
	}}, nil
}

func (s *server) ValidateStateStoreConfig(ctx context.Context, req *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	return &tfprotov6.ValidateStateStoreConfigResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) ConfigureStateStore(ctx context.Context, req *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	return &tfprotov6.ConfigureStateStoreResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) ReadStateBytes(ctx context.Context, req *tfprotov6.ReadStateBytesRequest) (*tfprotov6.ReadStateBytesStream, error) {
	diags := unsupported("state stores")
	return &tfprotov6.ReadStateBytesStream{Chunks: func(yield func(tfprotov6.ReadStateByteChunk) bool) {
		yield(tfprotov6.ReadStateByteChunk{Diagnostics: diags})
	}}, nil
}

func (s *server) WriteStateBytes(ctx context.Context, req *tfprotov6.WriteStateBytesStream) (*tfprotov6.WriteStateBytesResponse, error) {
	return &tfprotov6.WriteStateBytesResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) GetStates(ctx context.Context, req *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	return &tfprotov6.GetStatesResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) DeleteState(ctx context.Context, req *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	return &tfprotov6.DeleteStateResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) LockState(ctx context.Context, req *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	return &tfprotov6.LockStateResponse{Diagnostics: unsupported("state stores")}, nil
}

func (s *server) UnlockState(ctx context.Context, req *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	return &tfprotov6.UnlockStateResponse{Diagnostics: unsupported("state stores")}, nil
}
