run "undeclared" {
  command = plan
  assert {
    condition     = tether_file.nope.path == "x"
    error_message = "MSG-undeclared"
  }
  assert {
    condition     = output.nope == "x"
    error_message = "MSG-undeclared-output"
  }
  assert {
    condition     = var.nope == "x"
    error_message = "MSG-undeclared-var"
  }
}
