# Nested modules: the root calls env once per environment (for_each), each
# env calls service once per service (for_each) and a counted helper.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

module "env" {
  source   = "./env"
  for_each = { dev = ["api"], prod = ["api", "web"] }
  name     = each.key
  services = each.value
}

output "files" {
  value = { for e, m in module.env : e => m.files }
}

output "prod_web" {
  value = module.env["prod"].services["web"].path
}
