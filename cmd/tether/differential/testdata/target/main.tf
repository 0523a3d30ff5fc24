# -target, compared with terraform: what is refreshed, and which root
# outputs and data source results are recorded (TestDifferentialTarget).
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "ain" {
  default = "a1"
}
variable "kv" {
  default = "constant"
}

# a's data source is read under -target tether_value.b; other's is not
# (its file becomes a folder before the last targeted apply).
data "tether_file" "kept" { path = "kept.txt" }
data "tether_file" "other" { path = "other.txt" }

resource "tether_value" "a" { input = "${var.ain}${trimspace(data.tether_file.kept.content)}" }
resource "tether_value" "b" { input = "${tether_value.a.output}-b" }
resource "tether_value" "c" { input = "c1" }
resource "tether_file" "f" {
  path    = "out/f.txt"
  content = "hello\n"
}

locals {
  lb = tether_value.b.output
  l  = "const"
}

output "ob" { value = tether_value.b.output }
output "oa" { value = tether_value.a.output }
output "olb" { value = local.lb }
output "oc" { value = tether_value.c.output }
output "mix" { value = "${tether_value.a.output}-${tether_value.c.output}" }
output "k" { value = var.kv }
output "kl" { value = local.l }
output "f" { value = tether_file.f.content }
output "other" { value = data.tether_file.other.content }
