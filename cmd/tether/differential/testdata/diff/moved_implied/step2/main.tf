# Step 2 of moved_implied: gains becomes gains[0] and loses[0] becomes
# loses, with no moved block; named's moved block sends it to [1] instead,
# and [0] is created.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "gains" {
  count   = 1
  path    = "out/gains.txt"
  content = "gains count\n"
}

resource "tether_file" "loses" {
  path    = "out/loses.txt"
  content = "loses count\n"
}

moved {
  from = tether_file.named
  to   = tether_file.named[1]
}

resource "tether_file" "named" {
  count   = 2
  path    = "out/named-${count.index}.txt"
  content = "named\n"
}
