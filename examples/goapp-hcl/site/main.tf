# A page and a file holding its checksum, kept together under one folder:
# the module the Site component of examples/goapp corresponds to.

variable "dir" {
  type = string
}

variable "title" {
  type = string
}

variable "body" {
  type = string
}

resource "tether_file" "page" {
  path    = "${var.dir}/index.html"
  content = "<h1>${var.title}</h1>\n<pre>${var.body}</pre>\n"
}

resource "tether_file" "checksum" {
  path    = "${var.dir}/index.html.sha256"
  content = "${tether_file.page.sha256}\n"
}

output "page_path" {
  value = tether_file.page.path
}
