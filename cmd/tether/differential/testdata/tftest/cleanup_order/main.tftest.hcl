run "main_first" {
  variables {
    path = "out/one.txt"
  }
}

run "setup" {
  module {
    source = "./setup"
  }
}

run "main_again" {
  variables {
    path = "out/two.txt"
  }
  assert {
    condition     = output.path == "out/two.txt" && !fileexists("out/one.txt")
    error_message = "MSG-replaced"
  }
}
