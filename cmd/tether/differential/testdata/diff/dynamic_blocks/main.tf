# dynamic blocks on tether_bundle: mixed with static file blocks in order,
# with and without an iterator, over a list, a set and a map.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "pages" {
  type    = list(string)
  default = ["about", "contact"]
}

variable "settings" {
  type = map(string)
  default = {
    colour = "blue"
    size   = "large"
  }
}

resource "tether_bundle" "site" {
  dir = "out/site"

  file {
    path    = "index.html"
    content = "<h1>home</h1>\n"
  }

  dynamic "file" {
    for_each = var.pages
    content {
      path    = "${file.value}.html"
      content = "<h1>${file.value}</h1> page ${file.key}\n"
    }
  }

  file {
    path    = "robots.txt"
    content = "User-agent: *\n"
  }

  dynamic "file" {
    for_each = var.settings
    iterator = setting
    content {
      path    = "settings/${setting.key}"
      content = "${setting.value}\n"
    }
  }
}

# for_each over a map with the default iterator name.
resource "tether_bundle" "conf" {
  dir = "out/conf"

  dynamic "file" {
    for_each = { for k, v in var.settings : k => upper(v) }
    content {
      path    = "${file.key}.conf"
      content = "${file.key}=${file.value}\n"
    }
  }

  # An empty collection generates no block.
  dynamic "file" {
    for_each = []
    content {
      path    = "never"
      content = "never\n"
    }
  }

  file {
    path    = "last.conf"
    content = "end\n"
  }
}

# A dynamic block over a set, and one over another resource's instances.
resource "tether_value" "part" {
  for_each = toset(["x", "y"])
  input    = "part ${each.key}"
}

resource "tether_bundle" "parts" {
  dir = "out/parts"

  dynamic "file" {
    for_each = tether_value.part
    iterator = p
    content {
      path    = "${p.key}.txt"
      content = "${p.value.output}\n"
    }
  }

  dynamic "file" {
    for_each = toset(["b", "a"])
    content {
      path    = "set-${file.value}.txt"
      content = "${file.key}\n"
    }
  }
}

output "site_files" {
  value = tether_bundle.site.file[*].path
}

output "site_count" {
  value = tether_bundle.site.file_count
}

output "conf_files" {
  value = [for f in tether_bundle.conf.file : "${f.path}:${trimspace(f.content)}"]
}

output "parts_sha" {
  value = tether_bundle.parts.sha256
}

output "parts_files" {
  value = tether_bundle.parts.file
}
