# Step 2 of lifecycle.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# A new path forces replacement; the new file is written before the old
# one is deleted.
resource "tether_file" "cbd" {
  path    = "out/cbd-v2.txt"
  content = "blue/green\n"

  lifecycle {
    create_before_destroy = true
  }
}

# The content changes in configuration but is ignored: the file stays.
resource "tether_file" "ignored" {
  path    = "out/ignored.txt"
  content = "changed\n"

  lifecycle {
    ignore_changes = [content]
  }
}

resource "tether_file" "ignored_all" {
  path            = "out/ignored_all.txt"
  content         = "changed\n"
  file_permission = "0600"

  lifecycle {
    ignore_changes = all
  }
}

# An update here triggers replacement of token and triggered.
resource "tether_value" "version" {
  input = "v2"
}

resource "tether_value" "unrelated" {
  input = "u1"
}

resource "tether_random" "token" {
  length = 12

  lifecycle {
    replace_triggered_by = [tether_value.version]
  }
}

resource "tether_random" "stable" {
  length = 12

  lifecycle {
    replace_triggered_by = [tether_value.unrelated.output]
  }
}

resource "tether_file" "triggered" {
  path    = "out/triggered.txt"
  content = "token length ${tether_random.token.length}\n"

  lifecycle {
    replace_triggered_by = [tether_value.version.output]
  }
}

output "cbd_path" {
  value = tether_file.cbd.path
}

output "ignored_content" {
  value = tether_file.ignored.content
}
