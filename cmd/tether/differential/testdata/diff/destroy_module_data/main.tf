# destroy of a module whose for_each comes from a data source, called by a
# module that indexes its instances, with root locals calling functions on
# module outputs: Terraform destroys it, reading the data sources again
# (in the modules too) and evaluating the module outputs from state. The
# configuration of the provider module.app uses needs module.role's
# instances during the destroy.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

provider "tether" {
  alias       = "app"
  runtime_dir = ".tether/rt-${keys(module.role)[0]}"
}

data "tether_file" "roles" { path = "roles.txt" }

module "role" {
  source   = "./modules/role"
  for_each = toset(split(",", trimspace(data.tether_file.roles.content)))
  name     = each.key
}

module "app" {
  source    = "./modules/app"
  providers = { tether = tether.app }
  arns      = [module.role["admin"].arn, module.role["reader"].arn]
  first     = module.role["admin"].arn
}

locals {
  upper_arn = upper(module.app.joined)
  n         = length(module.app.list)
}

resource "tether_file" "summary" {
  path    = "out/summary.txt"
  content = "${local.upper_arn} ${local.n}\n"
}

output "summary" { value = local.upper_arn }
output "n" { value = local.n }
