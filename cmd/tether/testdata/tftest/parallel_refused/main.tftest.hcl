run "one" {
  parallel  = true
  state_key = "one"
  variables {
    name = "one"
  }
  assert {
    condition     = output.path == "out/one.txt"
    error_message = "MSG-one"
  }
}

run "two" {
  parallel  = true
  state_key = "two"
  variables {
    name = "two"
  }
  assert {
    condition     = output.path == "out/two.txt"
    error_message = "MSG-two"
  }
}

run "after" {
  variables {
    name = "three"
  }
  assert {
    condition     = fileexists("out/one.txt") && fileexists("out/two.txt") && output.path != ""
    error_message = "MSG-after"
  }
}
