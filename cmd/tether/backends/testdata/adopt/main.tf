# A folder Terraform can manage and Tether can take over, or the other
# way round: the real time and local providers beside the built-in one,
# count, for_each, a module, dependencies, create_before_destroy, a data
# source, sensitive values set from a variable and a schema-sensitive
# attribute (local_sensitive_file's content).
terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "~> 0.14.0"
    }
    local = {
      source = "hashicorp/local"
    }
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "password" {
  type      = string
  default   = "adopt-canary-7f3a9c"
  sensitive = true
}

resource "time_static" "start" {
  rfc3339 = "2024-01-02T03:04:05Z"
}

resource "time_offset" "later" {
  base_rfc3339 = time_static.start.rfc3339
  offset_days  = 7
}

resource "local_file" "report" {
  filename = "out/report.txt"
  content  = "from ${time_static.start.rfc3339} to ${time_offset.later.rfc3339}\n"
}

resource "local_sensitive_file" "key" {
  filename = "out/key.txt"
  content  = "key for ${time_static.start.unix}\n"
}

data "local_file" "input" {
  filename = "input.txt"
}

resource "tether_file" "secret" {
  count   = 2
  path    = "out/secret-${count.index}.txt"
  content = "${var.password}-${count.index}"
}

resource "tether_value" "each" {
  for_each = { a = 1, b = 2 }
  input    = { n = each.value, report = local_file.report.id, data = data.local_file.input.content }

  lifecycle {
    create_before_destroy = true
  }
}

resource "tether_random" "token" {
  length = 12
}

module "box" {
  source = "./box"
  base   = time_offset.later.rfc3339
}

output "later" {
  value = time_offset.later.rfc3339
}

output "password" {
  value     = var.password
  sensitive = true
}

output "box" {
  value = module.box.day
}
