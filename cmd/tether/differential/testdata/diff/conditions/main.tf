# Validation that passes: variable validation calling functions,
# preconditions and postconditions with self, an output precondition and a
# check block. Both tools must accept it and apply the same.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "name" {
  type    = string
  default = "service"

  validation {
    condition     = can(regex("^[a-z]+$", var.name)) && length(var.name) <= 16
    error_message = "The name must be lowercase letters, at most 16."
  }
}

variable "ports" {
  type    = list(number)
  default = [80, 443]

  validation {
    condition     = alltrue([for p in var.ports : p > 0 && p < 65536])
    error_message = "Every port must be between 1 and 65535."
  }
}

resource "tether_file" "conf" {
  path    = "out/${var.name}.conf"
  content = join("\n", [for p in var.ports : "listen ${p}"])

  lifecycle {
    precondition {
      condition     = length(var.ports) > 0
      error_message = "At least one port."
    }

    postcondition {
      condition     = self.sha256 == sha256(self.content)
      error_message = "The digest does not match the content of ${self.path}."
    }
  }
}

check "conf_is_small" {
  assert {
    condition     = length(tether_file.conf.content) < 1000
    error_message = "The configuration file is too large."
  }
}

output "conf" {
  value = tether_file.conf.path

  precondition {
    condition     = endswith(tether_file.conf.path, ".conf")
    error_message = "Unexpected path."
  }
}
