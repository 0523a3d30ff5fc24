# depends_on on a module: the reader module reads a file by a plain path
# string, so only depends_on orders it after the file is written; its data
# source is read during apply, after tether_file.source.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "source" {
  path    = "out/source.txt"
  content = "written first\n"
}

module "reader" {
  source     = "./reader"
  path       = "out/source.txt"
  copy       = "out/copy.txt"
  depends_on = [tether_file.source]
}

# A module depending on another module.
module "stamp" {
  source     = "./stamp"
  depends_on = [module.reader]
}

output "copied" {
  value = module.reader.content
}

output "stamp" {
  value = module.stamp.path
}
