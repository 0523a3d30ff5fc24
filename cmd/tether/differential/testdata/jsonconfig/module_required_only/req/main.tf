terraform {
  required_providers {
    tether = { source = "tetherhq/tether", version = ">= 0.0.1" }
  }
}

output "n" {
  value = 1
}
