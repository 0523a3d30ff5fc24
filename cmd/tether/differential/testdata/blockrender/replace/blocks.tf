# Step 3 of TestDifferentialBlockRendering: tether_bundle.b moves to
# another folder, which replaces it, and one of its files goes.

resource "tether_bundle" "b" {
  dir = "out/b2"
  file {
    path    = "one.txt"
    content = "one"
    header "Kind" {
      value = "text"
    }
    header "Lang" {
      value = "en"
    }
    header "Owner" {
      value = "you"
    }
  }
  file {
    path    = "secret.txt"
    content = var.secret
  }
  file {
    path    = "later.txt"
    content = tether_random.r.result
  }
  file {
    path    = "five.txt"
    content = "five"
  }
}

resource "tether_tester" "t" {
  test "a" {
    command = ["true"]
  }
  test "b" {
    command = ["true", "again"]
    timeout = "10s"
  }
  test "d" {
    command = ["false"]
  }
}
