# A first Tether configuration: files, a random suffix, a value passed
# through, and a data source that reads back what was written.

terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "greeting" {
  type        = string
  default     = "Hello"
  description = "What the greeting file says first."
}

resource "tether_random" "suffix" {
  length = 8
}

locals {
  name = "world-${tether_random.suffix.result}"
}

resource "tether_file" "greeting" {
  path    = "out/greeting.txt"
  content = "${var.greeting}, ${local.name}!\n"
}

resource "tether_value" "settings" {
  input = {
    greeting_sha256 = tether_file.greeting.sha256
    replicas        = 3
  }
}

data "tether_file" "readback" {
  path       = tether_file.greeting.path
  depends_on = [tether_file.greeting]
}

resource "tether_file" "summary" {
  path            = "out/summary.txt"
  content         = "${data.tether_file.readback.content}replicas: ${tether_value.settings.output.replicas}\n"
  file_permission = "0600"
}

output "greeting_path" {
  value = tether_file.greeting.path
}

output "greeting_sha256" {
  value = tether_file.greeting.sha256
}
