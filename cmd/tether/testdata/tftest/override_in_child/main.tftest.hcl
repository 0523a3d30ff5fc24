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
