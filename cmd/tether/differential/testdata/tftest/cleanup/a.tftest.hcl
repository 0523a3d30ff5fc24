run "make_a" {
  assert {
    condition     = fileexists(tether_file.f.path)
    error_message = "MSG-a-exists"
  }
}

run "make_b" {
  variables {
    name = "b"
  }
  assert {
    condition     = fileexists("out/zzz.txt") && output.exists
    error_message = "MSG-b-fails"
  }
}
