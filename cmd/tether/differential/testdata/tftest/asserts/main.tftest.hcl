run "passes" {
  assert {
    condition     = output.o == "a"
    error_message = "MSG-passes"
  }
  assert {
    condition     = tether_value.v.output == var.in
    error_message = "MSG-passes-2"
  }
}

run "fails" {
  assert {
    condition     = output.o == "b"
    error_message = "MSG-fails-${output.o}"
  }
  assert {
    condition     = length(output.o) == 1
    error_message = "MSG-fails-2"
  }
}

run "after_failure" {
  assert {
    condition     = output.o != ""
    error_message = "MSG-after"
  }
}
