output "reads" {
  value = {
    own      = file("${path.module}/note.txt")
    root     = file("hello.txt")
    exists   = [fileexists("note.txt"), fileexists("${path.module}/note.txt")]
    set      = fileset(path.module, "*")
    template = templatefile("${path.module}/note.tftpl", { who = "module" })
    hash     = filesha256("${path.module}/note.txt")
  }
}
