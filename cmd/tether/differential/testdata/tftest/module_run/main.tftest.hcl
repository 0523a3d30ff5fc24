run "setup" {
  module {
    source = "./setup"
  }
}

run "main" {
  variables {
    path = run.setup.name
  }
  assert {
    condition     = output.path == "out/made.txt"
    error_message = "MSG-path"
  }
  assert {
    condition     = fileexists("out/setup.txt") && output.path != ""
    error_message = "MSG-setup-exists"
  }
}
