terraform {
  required_providers {
    time = {
      source = "hashicorp/time"
    }
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "base" {
  type = string
}

resource "time_offset" "next" {
  base_rfc3339 = var.base
  offset_days  = 1
}

resource "tether_file" "day" {
  path    = "out/day.txt"
  content = "${time_offset.next.day}\n"
}

output "day" {
  value = time_offset.next.day
}
