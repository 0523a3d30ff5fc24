terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# Reads the copy by a fixed path: the module's depends_on on module.reader
# is what makes the copy exist by then.
data "tether_file" "copy" {
  path = "out/copy.txt"
}

resource "tether_file" "stamp" {
  path    = "out/stamp.txt"
  content = "stamped ${sha256(data.tether_file.copy.content)}\n"
}

output "path" {
  value = tether_file.stamp.path
}
