# A legacy module: its own provider blocks configure its providers, which
# a test file's provider and mock_provider blocks do not replace.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
provider "tether" {
  runtime_dir = ".tether/legacy-runtime"
}
provider "tether" {
  alias       = "x"
  runtime_dir = ".tether/legacy-runtime-x"
}
resource "tether_value" "v" {
  input = "child"
}
resource "tether_value" "x" {
  provider = tether.x
  input    = "child-x"
}
resource "tether_file" "f" {
  path    = "out/legacy-child.txt"
  content = "x"
}
output "o" {
  value = tether_value.v.output
}
output "x" {
  value = tether_value.x.output
}
