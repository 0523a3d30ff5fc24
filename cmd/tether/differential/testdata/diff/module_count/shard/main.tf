terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "index" {
  type = number
}

variable "total" {
  type = number
}

resource "tether_file" "part" {
  path    = format("out/shard-%03d.txt", var.index)
  content = "shard ${var.index + 1}/${var.total}\n"
}

output "path" {
  value = tether_file.part.path
}
