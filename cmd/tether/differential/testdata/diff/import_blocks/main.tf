# Import blocks adopt files that exist already: one that matches its
# configuration (imported, no change) and two, through for_each, whose
# content the configuration then changes (imported and updated).
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

locals {
  names = toset(["a", "b"])
}

import {
  to = tether_file.existing
  id = "out/existing.txt"
}

resource "tether_file" "existing" {
  path    = "out/existing.txt"
  content = "was here\n"
}

import {
  for_each = local.names
  to       = tether_file.many[each.key]
  id       = "out/${each.key}.txt"
}

resource "tether_file" "many" {
  for_each = local.names
  path     = "out/${each.key}.txt"
  content  = "new ${each.value}\n"
}

output "hashes" {
  value = { for k, f in tether_file.many : k => f.sha256 }
}
