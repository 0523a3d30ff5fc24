# Every instance of tether_file.f is overridden: no file is written, and
# the id is the given value; tether_value.v still goes through the
# provider.
override_resource {
  target = tether_file.f
  values = {
    id = "file-level"
  }
}

run "file_level" {
  assert {
    condition     = output.ids == ["file-level", "file-level"]
    error_message = "MSG-ids ${jsonencode(output.ids)}"
  }
  assert {
    condition     = !fileexists("out/never-0.txt") && !fileexists("out/never-1.txt") && output.v != ""
    error_message = "MSG-file-written"
  }
  assert {
    condition     = output.v == "a"
    error_message = "MSG-real"
  }
}

# A run's override of one instance comes before the file's; the other
# instance keeps the file's. (On a state where the objects exist, their
# recorded values stay: an override gives values to what is created.)
run "run_level" {
  state_key = "run_level"
  override_resource {
    target = tether_file.f[1]
    values = {
      id = "run-level"
    }
  }
  assert {
    condition     = output.ids == ["file-level", "run-level"]
    error_message = "MSG-run ${jsonencode(output.ids)}"
  }
}

# Without values, the computed attributes are generated.
run "generated" {
  state_key = "generated"
  override_resource {
    target = tether_value.v
  }
  assert {
    condition     = output.v == null
    error_message = "MSG-generated"
  }
}

# An existing object keeps its recorded values, in terraform test too.
run "existing_kept" {
  override_resource {
    target = tether_file.f[1]
    values = {
      id = "not-used"
    }
  }
  assert {
    condition     = output.ids == ["file-level", "file-level"]
    error_message = "MSG-kept ${jsonencode(output.ids)}"
  }
}

run "plan_unknown" {
  command = plan
  override_resource {
    target = tether_file.f[0]
  }
  assert {
    condition     = output.ids[1] == "file-level"
    error_message = "MSG-plan"
  }
}
