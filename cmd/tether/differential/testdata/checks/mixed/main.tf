# Check results that pass and fail: variable validations (root and in a
# module instance of for_each), preconditions and postconditions on counted
# instances and in a module, output preconditions, a check block whose two
# assertions fail (warnings, two failure messages), one that passes and one
# whose scoped data source is read during apply (unknown in the plan).
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "n" {
  type    = number
  default = 2
  validation {
    condition     = var.n < 5
    error_message = "too many"
  }
}

resource "tether_file" "f" {
  count   = var.n
  path    = "out/f${count.index}.txt"
  content = "hello"
  lifecycle {
    precondition {
      condition     = var.n > 0
      error_message = "need one"
    }
    postcondition {
      condition     = self.sha256 != ""
      error_message = "no digest"
    }
  }
}

check "fails" {
  assert {
    condition     = tether_file.f[0].content == "bye"
    error_message = "content is ${tether_file.f[0].content}"
  }
  assert {
    condition     = var.n == 0
    error_message = "always"
  }
}

check "later" {
  assert {
    condition     = tether_file.f[0].sha256 != ""
    error_message = "digest empty"
  }
}

check "file" {
  data "tether_file" "read" {
    path = tether_file.f[1].path
  }
  assert {
    condition     = data.tether_file.read.content == "hello"
    error_message = "read"
  }
}

module "m" {
  source = "./mod"
  for_each = toset(["a"])
  x      = each.key
}

output "o" {
  value = tether_file.f[0].path
  precondition {
    condition     = length(tether_file.f) == 2
    error_message = "two"
  }
}
