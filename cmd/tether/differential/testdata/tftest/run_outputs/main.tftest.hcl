run "one" {
  variables {
    in = "first"
  }
}

run "two" {
  variables {
    in = "${run.one.o}-second"
  }
  assert {
    condition     = output.o == "first-second"
    error_message = "MSG-two"
  }
  assert {
    condition     = run.one.o == "first"
    error_message = "MSG-two-one"
  }
}
