# Each output is one call of a filesystem function; terraform apply and tether up
# must give the same values.

output "file_0" {
  value = file("hello.txt")
}

output "filebase64_1" {
  value = filebase64("binary.bin")
}

output "fileexists_2" {
  value = fileexists("hello.txt")
}

output "fileexists_3" {
  value = fileexists("nope.txt")
}

output "fileset_4" {
  value = fileset("tree", "**/*.txt")
}

output "fileset_5" {
  value = fileset("tree", "*")
}

output "fileset_6" {
  value = fileset("tree", "{a,b}.*")
}

output "fileset_7" {
  value = fileset(".", "tree/sub/**")
}

output "basename_8" {
  value = basename("a/b/c.txt")
}

output "dirname_9" {
  value = dirname("a/b/c.txt")
}

output "templatefile_10" {
  value = templatefile("greeting.tftpl", {name = "web", subnets = ["10.0.1.0/24", "10.0.2.0/24"]})
}

output "templatefile_11" {
  value = templatefile("typed.tftpl", {value = {a = [1, 2]}})
}

# Relative paths are taken from the working folder (the root module's), in
# a module too; a module reads its own files through path.module.
module "reader" {
  source = "./modules/reader"
}

output "module_reads" {
  value = module.reader.reads
}
