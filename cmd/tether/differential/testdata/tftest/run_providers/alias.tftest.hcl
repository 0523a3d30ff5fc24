# Aliased mock_provider and provider blocks stand in for the
# configuration's provider of the same name and alias; a run's providers
# maps the configuration's names to them.
mock_provider "tether" {
  alias = "x"
  mock_resource "tether_value" {
    defaults = {
      output = "mock-x"
    }
  }
}

mock_provider "tether" {
  alias = "y"
  mock_resource "tether_value" {
    defaults = {
      output = "mock-y"
    }
  }
}

provider "tether" {
  alias       = "cfg"
  runtime_dir = ".tether/alias-runtime"
}

# tether.x is the mock; the default configuration is the real provider.
run "alias_mocked" {
  assert {
    condition     = output.w == "mock-x"
    error_message = "MSG-alias-x ${output.w}"
  }
  assert {
    condition     = output.o == "a"
    error_message = "MSG-alias-default ${output.o}"
  }
}

run "remapped" {
  state_key = "remapped"
  providers = {
    tether   = tether.y
    tether.x = tether.x
  }
  assert {
    condition     = output.o == "mock-y" && output.w == "mock-x"
    error_message = "MSG-remapped ${output.o} ${output.w}"
  }
}

run "to_configured" {
  state_key = "configured"
  command   = plan
  providers = {
    tether   = tether.y
    tether.x = tether.cfg
  }
  assert {
    condition     = tether_value.w.input == "w"
    error_message = "MSG-configured"
  }
}
