variables {
  dir = ".tether/test-runtime"
}

provider "tether" {
  runtime_dir = var.dir
}

run "r" {
  assert {
    condition     = tether_value.v.output == "a"
    error_message = "MSG-wrong"
  }
}
