# A local module with input variables (some defaulted) and outputs, called
# twice, its outputs used by the root.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

module "app" {
  source = "./mod"
  name   = "app"
  lines  = ["a", "b"]
}

module "worker" {
  source = "./mod"
  name   = "worker"
  lines  = ["c"]
  mode   = "0600"
  labels = { team = "ops" }
}

resource "tether_file" "index" {
  path    = "out/index.txt"
  content = "${module.app.path} ${module.worker.path}\n${module.app.label}\n${module.worker.label}\n"
}

output "app" {
  value = module.app.path
}

output "worker" {
  value = {
    path   = module.worker.path
    sha256 = module.worker.sha256
    label  = module.worker.label
  }
}
