# Check results not known at plan: a postcondition, an output
# precondition and a check assertion on a value known only after apply; a
# resource with no instances (pass, no objects); a check block whose data
# source cannot be read (fail, with the read's error as its message).
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_random" "r" {
  length = 8
  lifecycle {
    postcondition {
      condition     = length(self.result) == 8
      error_message = "wrong length"
    }
  }
}

resource "tether_file" "none" {
  count   = 0
  path    = "out/none.txt"
  content = "x"
  lifecycle {
    precondition {
      condition     = tether_random.r.length == 8
      error_message = "never"
    }
  }
}

check "rand" {
  assert {
    condition     = length(tether_random.r.result) == 9
    error_message = "result has ${length(tether_random.r.result)} characters"
  }
}

check "missing" {
  data "tether_file" "nope" {
    path = "out/nope.txt"
  }
  assert {
    condition     = data.tether_file.nope.content == "x"
    error_message = "nope"
  }
}

output "r" {
  value = tether_random.r.result
  precondition {
    condition     = tether_random.r.result != ""
    error_message = "empty"
  }
}
