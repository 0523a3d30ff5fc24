run "first" {
  variables {
    x = "1"
  }
}

run "targeted" {
  variables {
    x = "2"
  }
  plan_options {
    target = [tether_file.a]
  }
  assert {
    condition     = output.a == "2" && file("out/b.txt") == "1"
    error_message = "MSG-targeted"
  }
}

run "refresh_only" {
  variables {
    x = "3"
  }
  plan_options {
    mode = refresh-only
  }
  assert {
    condition     = file("out/a.txt") == "2" && tether_file.b.content == "1"
    error_message = "MSG-refresh-only"
  }
}
