# A postcondition that fails only at apply: the apply stops, the failed
# instances record fail with their messages, and what the apply never
# reached records unknown, though the plan had decided it.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_random" "r" {
  count  = 2
  length = 8
  lifecycle {
    postcondition {
      condition     = length(self.result) == 9
      error_message = "length is ${length(self.result)}"
    }
  }
}

resource "tether_file" "after" {
  path    = "out/after.txt"
  content = tether_random.r[0].result
  lifecycle {
    precondition {
      condition     = tether_random.r[1].length == 8
      error_message = "eight"
    }
  }
}

output "o" {
  value = tether_file.after.path
  precondition {
    condition     = tether_file.after.content != ""
    error_message = "empty"
  }
}
