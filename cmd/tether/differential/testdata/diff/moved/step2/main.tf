# Step 2 of moved: every object has a new address.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

moved {
  from = tether_file.old
  to   = tether_file.new
}

resource "tether_file" "new" {
  path    = "out/renamed.txt"
  content = "same object\n"
}

# count to for_each: each instance moves to a key.
moved {
  from = tether_file.counted[0]
  to   = tether_file.keyed["zero"]
}

moved {
  from = tether_file.counted[1]
  to   = tether_file.keyed["one"]
}

resource "tether_file" "keyed" {
  for_each = { zero = 0, one = 1 }
  path     = "out/counted-${each.value}.txt"
  content  = "item ${each.value}\n"
}

# A single resource gains count: it becomes instance 0.
moved {
  from = tether_value.single
  to   = tether_value.single[0]
}

resource "tether_value" "single" {
  count = 1
  input = "kept"
}

moved {
  from = module.before
  to   = module.after
}

module "after" {
  source = "./mod"
  name   = "mod"
}

output "old_sha" {
  value = tether_file.new.sha256
}

output "module_path" {
  value = module.after.path
}
