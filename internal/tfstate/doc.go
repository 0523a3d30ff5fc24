// Package tfstate reads and writes Terraform's state file, format version
// 4: the terraform.tfstate that Terraform 0.12 and later write, and what
// `terraform state pull` prints.
//
// It knows the file's layout only (resources grouped by module, mode, type
// and name, each with its instances; outputs; lineage and serial), and the
// two spellings it shares with Tether: instance addresses and attribute
// paths. What the values mean, which are sensitive and how Tether records
// them is the engine's business.
//
// terraform-json describes `terraform show -json`, a different document,
// so the file's types are declared here, after Terraform's documented
// format.
package tfstate
