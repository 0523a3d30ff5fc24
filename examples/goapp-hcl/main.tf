# The HCL twin of examples/goapp: the same infrastructure, written in
# Terraform's language. Applied from either, it records the same state, so
# one can take over from the other with no changes planned.

resource "tether_random" "suffix" {
  length = 8
}

resource "tether_file" "greeting" {
  path    = "out/greeting.txt"
  content = "Hello, world-${tether_random.suffix.result}!\n"
}

resource "tether_value" "settings" {
  input = {
    greeting_sha256 = tether_file.greeting.sha256
    replicas        = 3
  }
}

# Read back once written: nothing of the greeting is referenced, so only
# depends_on makes the read wait.
data "tether_file" "readback" {
  path       = "out/greeting.txt"
  depends_on = [tether_file.greeting]
}

module "site" {
  source = "./site"
  dir    = "out/site"
  title  = "Welcome"
  body   = data.tether_file.readback.content
}

resource "tether_file" "summary" {
  path            = "out/summary.txt"
  content         = "${data.tether_file.readback.content}words: ${length(split(" ", trimspace(data.tether_file.readback.content)))}\nsettings: ${tether_value.settings.id}\n"
  file_permission = "0600"
}

output "greeting_path" {
  value = tether_file.greeting.path
}

output "site_page" {
  value = module.site.page_path
}
