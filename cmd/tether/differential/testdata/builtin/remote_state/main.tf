# terraform_remote_state over the local backend, reading a Terraform state
# file: the data source's recorded result, its outputs and defaults.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

data "terraform_remote_state" "legacy" {
  backend = "local"
  config  = { path = "legacy/terraform.tfstate" }
  defaults = {
    region = "eu-west-1"
    vpc    = "overridden by the state"
  }
}

data "terraform_remote_state" "workspace" {
  backend   = "local"
  workspace = "default"
  config = {
    path          = "legacy/terraform.tfstate"
    workspace_dir = "legacy/workspaces"
  }
}

output "vpc" { value = data.terraform_remote_state.legacy.outputs.vpc }
output "subnets" { value = data.terraform_remote_state.legacy.outputs.subnets }
output "env" { value = data.terraform_remote_state.legacy.outputs.tags.env }
output "region" { value = data.terraform_remote_state.legacy.outputs.region }
output "same" { value = data.terraform_remote_state.workspace.outputs.vpc == data.terraform_remote_state.legacy.outputs.vpc }

resource "tether_file" "f" {
  path    = "out/remote.txt"
  content = jsonencode([data.terraform_remote_state.legacy.outputs.subnets, data.terraform_remote_state.legacy.outputs.tags])
}
