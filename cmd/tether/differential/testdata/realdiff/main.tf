# The real time and local providers beside the built-in one, with values
# flowing between all three, an aliased configuration and a module that is
# passed it; and the test provider's ephemeral resource.
terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "~> 0.14.0"
    }
    local = {
      source  = "hashicorp/local"
      version = ">= 1.4"
    }
    tether = {
      source = "tetherhq/tether"
    }
    testing = {
      source = "tetherhq/testing"
    }
  }
}

# An ephemeral token, opened and closed in each walk (the journal records
# when), given to a write-only attribute through a local: never recorded.
ephemeral "testing_token" "db" {
  name    = "db"
  journal = "out/journal"
}

locals {
  token = ephemeral.testing_token.db.value
}

resource "testing_secret" "db" {
  name             = "db"
  password_wo      = local.token
  password_version = 1
}

output "secret_applied" {
  value = testing_secret.db.applied
}

provider "time" {
  alias = "second"
}

resource "time_static" "start" {
  rfc3339 = "2024-01-02T03:04:05Z"
}

resource "time_offset" "later" {
  base_rfc3339 = time_static.start.rfc3339
  offset_days  = 7
  offset_hours = 3
}

resource "time_static" "other" {
  provider = time.second
  rfc3339  = time_offset.later.rfc3339
}

resource "local_file" "report" {
  filename        = "out/report.txt"
  content         = "from ${time_static.start.rfc3339} to ${time_offset.later.rfc3339} (${time_offset.later.unix})\n"
  file_permission = "0640"
}

resource "tether_file" "index" {
  path    = "out/index.txt"
  content = "${local_file.report.id}\n${time_static.other.year}\n"
}

module "stamp" {
  source    = "./stamp"
  providers = { time = time.second }
  base      = time_static.other.rfc3339
}

output "later" {
  value = time_offset.later.rfc3339
}

output "unix" {
  value = time_offset.later.unix
}

output "report_id" {
  value = local_file.report.id
}

output "stamp" {
  value = module.stamp.day
}

output "parsed" {
  value = provider::time::rfc3339_parse(time_offset.later.rfc3339)
}

output "parsed_now" {
  value = provider::time::rfc3339_parse("2024-02-29T23:59:58Z").day
}

output "core" {
  value = core::upper("tether")
}
