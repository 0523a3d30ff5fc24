mock_provider "tether" {
  mock_resource "tether_value" {
    defaults = {
      output = "mocked"
    }
  }
}
run "mocked" {
  assert {
    condition     = output.o == "mocked"
    error_message = "MSG-mocked ${output.o}"
  }
  assert {
    condition     = length(output.id) == 8
    error_message = "MSG-generated ${output.id}"
  }
  assert {
    condition     = !fileexists("out/never.txt") && output.o != ""
    error_message = "MSG-nofile"
  }
}
run "plan_unknown" {
  command = plan
  assert {
    condition     = output.o == "mocked"
    error_message = "MSG-plan"
  }
}
