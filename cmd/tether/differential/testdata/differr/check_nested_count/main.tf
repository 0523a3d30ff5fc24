# count on a check block's data source.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

check "file" {
  data "tether_file" "read" {
    count = 1
    path  = "main.tf"
  }

  assert {
    condition     = data.tether_file.read[0].content != ""
    error_message = "empty"
  }
}
