run "root_folder" {
  command = plan
  assert {
    condition     = output.all == "tfvars-cli-cli-cli"
    error_message = "MSG-root-folder ${output.all}"
  }
}
