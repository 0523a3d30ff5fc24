# Step 2 of TestDifferentialBlockRendering: in tether_bundle.b a file
# block changes (a header changed, one added) and one is added; in
# tether_tester.t a test block changes, one goes and one comes; the rest
# stays and is hidden as unchanged.

resource "tether_bundle" "b" {
  dir = "out/b"
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
