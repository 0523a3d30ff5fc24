# A module requires a provider that nothing uses or configures: Terraform
# keys it in the JSON plan's configuration at that module
# (module.req:tether), with the module's version constraint.
module "req" {
  source = "./req"
}

output "n" {
  value = module.req.n
}
