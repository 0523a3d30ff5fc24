run "constant" {
  command = plan
  assert {
    condition     = 1 == 1
    error_message = "MSG-constant"
  }
}
