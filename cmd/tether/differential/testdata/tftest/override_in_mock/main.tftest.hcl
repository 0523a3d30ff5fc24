mock_provider "tether" {
  mock_resource "tether_file" {
    defaults = {
      id = "from-mock"
    }
  }
  override_resource {
    target = tether_file.f[0]
    values = {
      id = "from-mock-override"
    }
  }
}

run "mock_override" {
  assert {
    condition     = output.ids == ["from-mock-override", "from-mock"]
    error_message = "MSG-ids ${jsonencode(output.ids)}"
  }
}

run "file_before_mock" {
  state_key = "other"
  override_resource {
    target = tether_file.f[0]
    values = {
      id = "run"
    }
  }
  assert {
    condition     = output.ids == ["run", "from-mock"]
    error_message = "MSG-run ${jsonencode(output.ids)}"
  }
}
