# Nested blocks as Terraform shows them, through the built-in provider:
# tether_bundle's file blocks (a list, each with a map of header blocks)
# and tether_tester's test blocks (a map). TestDifferentialBlockRendering
# plans, shows and applies it with terraform and tether, then each step
# file in turn.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "secret" {
  type      = string
  default   = "hunter2"
  sensitive = true
}

variable "secret_files" {
  type      = map(string)
  default   = { "s.txt" = "s" }
  sensitive = true
}

resource "tether_random" "r" {
  length     = 4
  characters = "a"
}

# Every file block comes from a value known only after apply.
resource "tether_bundle" "u" {
  dir = "out/u"
  dynamic "file" {
    for_each = toset([tether_random.r.result])
    content {
      path    = "${file.value}.txt"
      content = file.value
    }
  }
}

# The file blocks come from a sensitive map.
resource "tether_bundle" "s" {
  dir = "out/s"
  dynamic "file" {
    for_each = var.secret_files
    content {
      path    = file.key
      content = file.value
    }
  }
}

# Not even the number of file blocks is known until after apply, nor the
# number of header blocks of the static one.
resource "tether_bundle" "w" {
  dir = "out/w"
  file {
    path    = "static.txt"
    content = "static"
    dynamic "header" {
      for_each = toset(split(",", tether_random.r.result))
      labels   = ["X-Static"]
      content {
        value = header.value
      }
    }
  }
  dynamic "file" {
    for_each = toset(split(",", tether_random.r.result))
    content {
      path    = "${file.value}.txt"
      content = file.value
    }
  }
}
