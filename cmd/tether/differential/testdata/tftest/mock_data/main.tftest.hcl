mock_provider "tether" {
  mock_data "tether_file" {
    defaults = {
      content = "mocked content"
    }
  }
}

run "reads_mock" {
  assert {
    condition     = data.tether_file.d.content == "mocked content"
    error_message = "MSG-data ${data.tether_file.d.content}"
  }
  # tether_value's output is of any type: a mock leaves it null, in
  # terraform test as here, so this assert fails in both.
  assert {
    condition     = output.content == "mocked content"
    error_message = "MSG-output"
  }
}

run "plan_reads_mock_too" {
  command = plan
  assert {
    condition     = data.tether_file.d.content == "mocked content"
    error_message = "MSG-plan-data"
  }
}
