resource "tether_file" "first" {
  path    = "out/first.txt"
  content = "first"
}

module "net" {
  source     = "../modules/net"
  prefix     = "m"
  names      = ["a", "b", "c"]
  secret     = tether_file.first.sha256
  depends_on = [tether_file.first]
}

resource "tether_file" "after" {
  path       = "out/after.txt"
  content    = "${module.net.count} files\n"
  depends_on = [module.net]
}

output "paths" {
  value = module.net.paths
}

output "count" {
  value = module.net.count
}

output "inner_sha" {
  value     = module.net.inner_sha
  sensitive = true
}
