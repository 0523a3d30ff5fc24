# Step 1 of moved: resources, instances and a module under their old names.
# step2/main.tf renames them all with moved blocks; the second apply must
# move the objects, creating and destroying nothing.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "old" {
  path    = "out/renamed.txt"
  content = "same object\n"
}

resource "tether_file" "counted" {
  count   = 2
  path    = "out/counted-${count.index}.txt"
  content = "item ${count.index}\n"
}

resource "tether_value" "single" {
  input = "kept"
}

module "before" {
  source = "./mod"
  name   = "mod"
}

output "old_sha" {
  value = tether_file.old.sha256
}
