# A child module's own provider blocks (a legacy module) keep configuring
# its providers: the test file's mock_provider and provider blocks stand in
# for the root module's alone.
mock_provider "tether" {
  mock_resource "tether_value" {
    defaults = {
      output = "mocked"
    }
  }
}

mock_provider "tether" {
  alias = "x"
  mock_resource "tether_value" {
    defaults = {
      output = "mock-x"
    }
  }
}

run "legacy_child" {
  module {
    source = "./legacy"
  }
  assert {
    condition     = output.root == "mocked"
    error_message = "MSG-legacy-root ${output.root}"
  }
  assert {
    condition     = output.child == "child"
    error_message = "MSG-legacy-child ${output.child}"
  }
  assert {
    condition     = output.child_x == "child-x"
    error_message = "MSG-legacy-child-x ${output.child_x}"
  }
  assert {
    condition     = fileexists("out/legacy-child.txt") && output.root != ""
    error_message = "MSG-legacy-file"
  }
}
