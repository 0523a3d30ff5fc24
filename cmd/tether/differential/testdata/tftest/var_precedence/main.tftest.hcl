variables {
  c = "file"
  d = "file"
}

run "levels" {
  command = plan
  variables {
    d = "run"
  }
  assert {
    condition     = output.all == "tfvars-cli-file-run"
    error_message = "MSG-levels"
  }
}

run "file_level" {
  command = plan
  assert {
    condition     = output.all == "tfvars-cli-file-file"
    error_message = "MSG-file-level"
  }
}
