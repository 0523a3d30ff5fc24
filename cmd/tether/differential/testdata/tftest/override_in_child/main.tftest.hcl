# Every object of the child modules is overridden, one instance by its
# own block: addresses in module instances, with string keys.
override_resource {
  target = module.child["a"].tether_file.f
  values = {
    id = "a-any"
  }
}

override_resource {
  target = module.child["b"].tether_file.f
  values = {
    id = "b-any"
  }
}

run "in_child" {
  override_resource {
    target = module.child["a"].tether_file.f["y"]
    values = {
      id = "a-y"
    }
  }
  assert {
    condition     = output.ids == { a = { x = "a-any", y = "a-y" }, b = { x = "b-any", y = "b-any" } }
    error_message = "MSG-ids ${jsonencode(output.ids)}"
  }
}

# override_module: nothing in the module is planned; its outputs are the
# given ones, for every instance of the call.
run "module_call" {
  state_key = "module_call"
  override_module {
    target = module.child
    outputs = {
      ids = { x = "mx" }
    }
  }
  assert {
    condition     = output.ids == { a = { x = "mx" }, b = { x = "mx" } }
    error_message = "MSG-module-call ${jsonencode(output.ids)}"
  }
}

# One instance, with an output it does not set: null. The other instance
# is planned, with the file's overrides.
run "module_instance" {
  state_key = "module_instance"
  override_module {
    target  = module.child["a"]
    outputs = {}
  }
  assert {
    condition     = output.ids["a"] == null
    error_message = "MSG-module-null"
  }
  assert {
    condition     = output.ids["b"] == { x = "b-any", y = "b-any" }
    error_message = "MSG-module-other ${jsonencode(output.ids["b"])}"
  }
}

# A run's override_module comes before the file's, and its outputs are
# known while planning.
run "module_plan" {
  command   = plan
  state_key = "module_plan"
  override_module {
    target = module.child["b"]
    outputs = {
      ids = { z = "planned" }
    }
  }
  assert {
    condition     = output.ids["b"] == { z = "planned" }
    error_message = "MSG-module-plan"
  }
}

# override_during = plan: the override's values are known while planning.
run "during_plan" {
  command   = plan
  state_key = "during_plan"
  override_resource {
    target          = module.child["a"].tether_file.f
    override_during = plan
    values = {
      id = "p"
    }
  }
  assert {
    condition     = output.ids["a"] == { x = "p", y = "p" }
    error_message = "MSG-during-plan"
  }
}
