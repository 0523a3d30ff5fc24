# A check block's data source, referred to from outside the check.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

check "file" {
  data "tether_file" "read" {
    path = "main.tf"
  }

  assert {
    condition     = data.tether_file.read.content != ""
    error_message = "empty"
  }
}

output "leak" {
  value = data.tether_file.read.content
}
