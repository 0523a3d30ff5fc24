# The forms of depends_on terraform 1.11 takes besides a whole resource or
# module: one instance (which orders after every instance, as depends_on
# works on configuration objects), a module instance's output, and a local
# value, which orders after whatever the local refers to. Each data source
# reads a file by a plain path string, so only its depends_on makes the file
# exist by then.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "parts" {
  count   = 2
  path    = "out/part${count.index}.txt"
  content = "part ${count.index}\n"
}

data "tether_file" "second_part" {
  path       = "out/part1.txt"
  depends_on = [tether_file.parts[0]]
}

module "writer" {
  source = "./writer"
  count  = 1
}

data "tether_file" "written" {
  path       = "out/written.txt"
  depends_on = [module.writer[0].path]
}

locals {
  marker = tether_file.marker.id
}

resource "tether_file" "marker" {
  path    = "out/marker.txt"
  content = "marker\n"
}

variable "unused" {
  default = "x"
}

data "tether_file" "marked" {
  path       = "out/marker.txt"
  depends_on = [local.marker, var.unused]
}

output "read" {
  value = [data.tether_file.second_part.content, data.tether_file.written.content, data.tether_file.marked.content]
}
