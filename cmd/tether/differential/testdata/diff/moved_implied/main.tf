# Step 1 of moved_implied: resources with and without count. step2/ adds
# and removes count without moved blocks: Terraform keeps the objects as
# instance 0 and as the unkeyed instance (its implied moves), unless a
# moved block names the resource.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "gains" {
  path    = "out/gains.txt"
  content = "gains count\n"
}

resource "tether_file" "loses" {
  count   = 1
  path    = "out/loses.txt"
  content = "loses count\n"
}

resource "tether_file" "named" {
  path    = "out/named-1.txt"
  content = "named\n"
}
