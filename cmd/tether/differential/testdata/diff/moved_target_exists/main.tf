# Step 1 of moved_target_exists: two files. step2/ moves the first to the
# second's address, where an object is recorded already: the move is
# skipped with a warning and the first file, declared nowhere, destroyed.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "a" {
  path    = "out/a.txt"
  content = "a\n"
}

resource "tether_file" "b" {
  path    = "out/b.txt"
  content = "b\n"
}
