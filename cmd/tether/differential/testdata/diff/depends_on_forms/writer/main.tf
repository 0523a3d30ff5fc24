terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "w" {
  path    = "out/written.txt"
  content = "written by the module\n"
}

output "path" {
  value = tether_file.w.path
}
