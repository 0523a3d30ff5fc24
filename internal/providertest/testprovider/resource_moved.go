package main

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// moved is testing_moved: a name and a serial, like testing_thing, and the
// target of moved blocks from testing_thing (a move across resource
// types, Terraform 1.8's MoveResourceState). It takes over the thing's id,
// name and serial; any other source type is refused.
type moved struct{ configured }

var _ resource.ResourceWithMoveState = (*moved)(nil)

type movedModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Serial types.Int64  `tfsdk:"serial"`
}

func (*moved) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_moved"
}

// Schema is testing_thing's id, name and serial, the attributes a move
// carries over.
func (*moved) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	(&thing{}).Schema(ctx, req, resp)
	attrs := resp.Schema.Attributes
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{"id": attrs["id"], "name": attrs["name"], "serial": attrs["serial"]},
	}
}

// MoveState takes a testing_thing of this provider, whatever its schema
// version: its recorded JSON has had id, name and serial from the start.
func (*moved) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{
		StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
			if req.SourceTypeName != "testing_thing" || req.SourceProviderAddress != "registry.terraform.io/tetherhq/testing" || req.SourceRawState == nil {
				return // not ours: the framework refuses the move
			}
			var thing struct {
				ID     string `json:"id"`
				Name   string `json:"name"`
				Serial *int64 `json:"serial"`
			}
			if err := json.Unmarshal(req.SourceRawState.JSON, &thing); err != nil {
				resp.Diagnostics.AddError("Unreadable testing_thing", "The recorded testing_thing is not the JSON object expected: "+err.Error()+".")
				return
			}
			m := movedModel{ID: types.StringValue(thing.ID), Name: types.StringValue(thing.Name), Serial: types.Int64PointerValue(thing.Serial)}
			resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
		},
	}}
}

func (*moved) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m movedModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	m.Serial = types.Int64Value(serial)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (*moved) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (*moved) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw.Copy()
}

func (*moved) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
