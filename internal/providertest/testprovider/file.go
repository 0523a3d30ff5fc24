package main

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// file is testing_file: a file (its path relative to the provider
// process's folder, the working folder) standing for a remote object. Read
// forgets an object whose file is gone; Delete, as strict as many cloud
// APIs, fails when the file is already gone, so a destroy that did not
// refresh first shows.
type file struct{ configured }

type fileModel struct {
	ID      types.String `tfsdk:"id"`
	Path    types.String `tfsdk:"path"`
	Content types.String `tfsdk:"content"`
}

func (*file) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_file"
}

func (*file) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"path": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"content": schema.StringAttribute{Required: true},
		},
	}
}

func (*file) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(writePlanned(ctx, req.Plan, &resp.State)...)
}

// writePlanned writes the planned file and records it.
func writePlanned(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State) diag.Diagnostics {
	var m fileModel
	diags := plan.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	if err := os.WriteFile(m.Path.ValueString(), []byte(m.Content.ValueString()), 0o644); err != nil {
		diags.AddError("Cannot write the file", "Writing "+m.Path.ValueString()+" failed: "+err.Error()+".")
		return diags
	}
	m.ID = m.Path
	return append(diags, state.Set(ctx, &m)...)
}

func (*file) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data, err := os.ReadFile(m.Path.ValueString())
	if errors.Is(err, fs.ErrNotExist) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the file", "Reading "+m.Path.ValueString()+" failed: "+err.Error()+".")
		return
	}
	m.Content = types.StringValue(string(data))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (*file) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(writePlanned(ctx, req.Plan, &resp.State)...)
}

func (*file) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := os.Remove(m.Path.ValueString())
	if errors.Is(err, fs.ErrNotExist) {
		resp.Diagnostics.AddError("Object already deleted", "The file "+m.Path.ValueString()+" no longer exists: it was deleted outside Terraform, and the state was not refreshed before deleting.")
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot delete the file", "Removing "+m.Path.ValueString()+" failed: "+err.Error()+".")
	}
}
