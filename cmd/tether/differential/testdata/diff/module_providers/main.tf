# The root module uses no provider itself: each module that does, and
# whose caller does not, keys the provider in the JSON plan's
# configuration (module.site:tether, module.other:tether), and the module
# it calls shares its caller's entry. Data sources in modules are recorded
# in state as Terraform records them.
module "site" {
  source = "./site"
  name   = "site"
}

module "other" {
  source = "./other"
}

output "site" {
  value = module.site.path
}
