# Step 1 of lifecycle: create_before_destroy, ignore_changes and
# replace_triggered_by. step2/main.tf changes each so that the lifecycle
# setting decides the outcome.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "cbd" {
  path    = "out/cbd-v1.txt"
  content = "blue/green\n"

  lifecycle {
    create_before_destroy = true
  }
}

resource "tether_file" "ignored" {
  path    = "out/ignored.txt"
  content = "original\n"

  lifecycle {
    ignore_changes = [content]
  }
}

resource "tether_file" "ignored_all" {
  path            = "out/ignored_all.txt"
  content         = "original\n"
  file_permission = "0644"

  lifecycle {
    ignore_changes = all
  }
}

resource "tether_value" "version" {
  input = "v1"
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
