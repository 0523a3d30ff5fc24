# Required variables need no value to validate.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "path" {
  type = string
}

variable "tags" {
  type = map(string)
  validation {
    condition     = length(var.tags) < 10
    error_message = "Too many tags."
  }
}

resource "tether_file" "f" {
  path    = var.path
  content = jsonencode(var.tags)
}
