# The built-in terraform provider's functions, declared as both tools
# require for provider functions.
terraform {
  required_providers {
    terraform = { source = "terraform.io/builtin/terraform" }
    tether    = { source = "tetherhq/tether" }
  }
}

locals {
  value = { b = ["x", true, 1.5], a = { n = null, s = "q\"uote" }, c = tomap({ k = "v" }) }
}

output "expr" { value = provider::terraform::encode_expr(local.value) }
output "tfvars" { value = provider::terraform::encode_tfvars(local.value) }
output "decoded" { value = provider::terraform::decode_tfvars("a = 1\nb = [\"x\", { y = true }]\nc = \"s\"\n") }
output "round_trip" { value = provider::terraform::decode_tfvars(provider::terraform::encode_tfvars(local.value)) }

resource "tether_file" "f" {
  path    = "out/functions.txt"
  content = join("\n---\n", [provider::terraform::encode_expr(local.value), provider::terraform::encode_tfvars(local.value)])
}
