terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "x" {
  type = string
  validation {
    condition     = length(var.x) == 1
    error_message = "one char"
  }
}
resource "tether_file" "g" {
  path    = "out/g${var.x}.txt"
  content = var.x
  lifecycle {
    postcondition {
      condition     = self.content != "b"
      error_message = "not b: ${self.content}"
    }
  }
}
output "y" {
  value = tether_file.g.path
  precondition {
    condition     = var.x != ""
    error_message = "x"
  }
}
