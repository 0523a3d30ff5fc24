# The resources the steps change (update/, replace/).

resource "tether_bundle" "b" {
  dir = "out/b"
  file {
    path    = "one.txt"
    content = "one"
    header "Kind" {
      value = "text"
    }
    header "Owner" {
      value = "me"
    }
  }
  file {
    path    = "two.txt"
    content = "two"
  }
  file {
    path    = "secret.txt"
    content = var.secret
  }
  file {
    path    = "later.txt"
    content = tether_random.r.result
  }
}

resource "tether_tester" "t" {
  test "a" {
    command = ["true"]
  }
  test "b" {
    command = ["true"]
    timeout = "10s"
  }
  test "c" {
    command = ["false"]
  }
}
