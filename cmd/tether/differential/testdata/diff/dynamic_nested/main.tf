# Nested dynamic blocks: tether_bundle's file blocks hold labeled header
# blocks. Dynamic headers inside static and dynamic files, with labels and
# iterators, mixed with static headers.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# The documents are a local, not a variable: Terraform validates with
# variables unknown, and dynamic block labels must be known then
# ("Invalid dynamic block label").
locals {
  docs = {
    "guide.txt" = {
      body    = "Read me.\n"
      headers = { Author = "ops", Version = "2" }
    }
    "notes.txt" = {
      body    = "Notes.\n"
      headers = {}
    }
  }

  common = {
    Generator = "tether"
    Project   = "diff"
  }
}

resource "tether_bundle" "docs" {
  dir = "out/docs"

  # A static file with a static header and a dynamic one.
  file {
    path    = "README"
    content = "Start here.\n"

    header "Title" {
      value = "Readme"
    }

    dynamic "header" {
      for_each = local.common
      labels   = [header.key]
      content {
        value = header.value
      }
    }
  }

  # Dynamic files, each with dynamic headers under their own iterator,
  # referring to the outer iterator too.
  dynamic "file" {
    for_each = local.docs
    iterator = doc
    content {
      path    = doc.key
      content = doc.value.body

      dynamic "header" {
        for_each = doc.value.headers
        iterator = h
        labels   = [h.key]
        content {
          value = "${h.value} (${doc.key})"
        }
      }

      header "Source" {
        value = "local.docs[\"${doc.key}\"]"
      }
    }
  }
}

output "files" {
  value = [for f in tether_bundle.docs.file : { path = f.path, headers = { for k, h in f.header : k => h.value } }]
}

output "count" {
  value = tether_bundle.docs.file_count
}

output "sha256" {
  value = tether_bundle.docs.sha256
}
