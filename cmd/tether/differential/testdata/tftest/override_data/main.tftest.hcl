# Read through the provider, the data source fails: the file does not
# exist. Overridden, it is never read.
override_data {
  target = data.tether_file.d
  values = {
    content = "overridden"
  }
}

run "reads_override" {
  assert {
    condition     = data.tether_file.d.content == "overridden"
    error_message = "MSG-data ${data.tether_file.d.content}"
  }
  assert {
    condition     = output.content == "overridden"
    error_message = "MSG-output"
  }
}

run "plan_reads_override" {
  command = plan
  override_data {
    target = data.tether_file.d
    values = {
      content = "run-level"
    }
  }
  assert {
    condition     = data.tether_file.d.content == "run-level"
    error_message = "MSG-plan-data"
  }
}
