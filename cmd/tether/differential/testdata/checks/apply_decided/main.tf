# Rules that only apply can decide, their values unknown at plan: a
# resource's precondition that fails stops its creation (nothing created,
# the failure recorded), one that passes lets it be created, a data
# source's precondition is decided before its read during apply, a
# postcondition fails after its object was created (which state keeps),
# and an output's precondition fails.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_random" "r" {
  length = 4
}

resource "tether_file" "stopped" {
  path    = "out/stopped.txt"
  content = tether_random.r.result
  lifecycle {
    precondition {
      condition     = length(tether_random.r.result) == 5
      error_message = "The string has ${length(tether_random.r.result)} characters, not 5."
    }
  }
}

resource "tether_file" "created" {
  path    = "out/created.txt"
  content = tether_random.r.result
  lifecycle {
    precondition {
      condition     = length(tether_random.r.result) == 4
      error_message = "four"
    }
  }
}

data "tether_file" "read" {
  path = tether_file.created.path
  lifecycle {
    precondition {
      condition     = length(tether_random.r.result) == 3
      error_message = "The data source wants three."
    }
  }
}

resource "tether_value" "post" {
  input = "${length(tether_random.r.result)}"
  lifecycle {
    postcondition {
      condition     = self.output == "5"
      error_message = "The output is ${self.output}, not 5."
    }
  }
}

output "o" {
  value = tether_random.r.result
  precondition {
    condition     = length(tether_random.r.result) == 6
    error_message = "The output wants six."
  }
}
