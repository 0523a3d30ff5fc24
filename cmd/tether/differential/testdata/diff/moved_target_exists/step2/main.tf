# Step 2 of moved_target_exists: the target of the move exists.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

moved {
  from = tether_file.a
  to   = tether_file.b
}

resource "tether_file" "b" {
  path    = "out/b.txt"
  content = "b\n"
}
