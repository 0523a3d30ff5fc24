run "tests_folder" {
  command = plan
  assert {
    condition     = output.all == "tfvars-cli-testsdir-auto"
    error_message = "MSG-tests-folder ${output.all}"
  }
}
