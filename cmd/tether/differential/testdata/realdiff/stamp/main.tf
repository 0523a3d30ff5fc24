terraform {
  required_providers {
    time = {
      source = "hashicorp/time"
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

output "day" {
  value = time_offset.next.day
}
