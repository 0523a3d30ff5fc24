terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_file" "f" {
  path    = "out/f.txt"
  content = "hello"
}

check "file" {
  data "tether_file" "read" {
    path = tether_file.f.path
  }

  assert {
    condition     = data.tether_file.read.content == "hello"
    error_message = "content is ${data.tether_file.read.content}"
  }
}

check "missing" {
  assert {
    condition     = data.tether_file.nope.content == "x"
    error_message = "nope"
  }

  data "tether_file" "nope" {
    path = "out/nope.txt"
  }
}
