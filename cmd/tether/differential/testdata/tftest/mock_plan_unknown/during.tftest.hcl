# override_during on a mock_provider is the default of its blocks; a
# mock_resource's own comes first; a run's override defaults to apply.
mock_provider "tether" {
  override_during = plan
  # Every computed attribute is given: terraform test 1.11 generates a
  # value anew when it plans again during apply, and then fails with
  # "Provider produced inconsistent final plan".
  mock_resource "tether_value" {
    defaults = {
      output = "planned"
      id     = "vid"
    }
  }
  mock_resource "tether_file" {
    override_during = apply
    defaults = {
      id = "fileid"
    }
  }
}

run "mock_during_plan" {
  command = plan
  assert {
    condition     = output.o == "planned"
    error_message = "MSG-mock-during-plan"
  }
}

run "run_override_plan" {
  command = plan
  override_resource {
    target          = tether_file.f
    override_during = plan
    values = {
      id = "runid"
    }
  }
  assert {
    condition     = output.id == "runid"
    error_message = "MSG-run-override-plan"
  }
}

# Applied, the values planned stay.
run "applied" {
  assert {
    condition     = output.o == "planned" && output.id == "fileid"
    error_message = "MSG-applied ${output.o} ${output.id}"
  }
}

run "block_during_apply" {
  command   = plan
  state_key = "fresh"
  assert {
    condition     = output.id == "fileid"
    error_message = "MSG-block-apply"
  }
}
