# -target: after a whole apply, an apply of one instance records the
# results of what it walks (the target and what it depends on); the other
# instance of the same resource is unknown, and what it leaves out (a check
# block, another resource) has no instances. (A root output with a
# precondition is left out of this case: under -target Tether holds one
# that Terraform evaluates.)
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
