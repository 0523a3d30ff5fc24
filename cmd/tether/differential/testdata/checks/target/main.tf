# -target: after a whole apply, an apply of one instance records the
# results of what it walks (the target and what it depends on); the other
# instance of the same resource is unknown, and what it leaves out (a check
# block, another resource) has no instances; a root output computed from
# the targeted instance is evaluated, its precondition with it.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "content" {
  type    = string
  default = "hello"
  validation {
    condition     = length(var.content) > 0
    error_message = "Empty content."
  }
}

resource "tether_file" "f" {
  count   = 2
  path    = "out/f${count.index}.txt"
  content = var.content
  lifecycle {
    postcondition {
      condition     = self.sha256 != ""
      error_message = "No digest."
    }
  }
}

resource "tether_file" "other" {
  path    = "out/other.txt"
  content = "other"
  lifecycle {
    precondition {
      condition     = var.content != "x"
      error_message = "Not x."
    }
  }
}

check "first" {
  assert {
    condition     = tether_file.f[0].content == "hello"
    error_message = "content is ${tether_file.f[0].content}"
  }
}

output "first" {
  value = tether_file.f[0].content
  precondition {
    condition     = tether_file.f[0].content != ""
    error_message = "Empty."
  }
}

output "both" {
  value = tether_file.f[*].content
}
