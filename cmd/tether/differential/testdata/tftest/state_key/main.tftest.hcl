run "a" {
  variables {
    name = "a"
  }
}

run "b_own_state" {
  state_key = "other"
  variables {
    name = "b"
  }
  assert {
    condition     = fileexists("out/a.txt") && output.path == "out/b.txt"
    error_message = "MSG-a-kept"
  }
}

run "c_main_state" {
  variables {
    name = "c"
  }
  assert {
    condition     = !fileexists("out/a.txt") && fileexists("out/b.txt") && output.path == "out/c.txt"
    error_message = "MSG-a-replaced"
  }
}
