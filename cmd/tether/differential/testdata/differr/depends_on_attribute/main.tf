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

# depends_on names objects, not their attributes.
resource "tether_file" "b" {
  path       = "out/b.txt"
  content    = "b\n"
  depends_on = [tether_file.a.path]
}
