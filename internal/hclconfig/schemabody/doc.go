// Package schemabody reads a configuration body (a resource's, a data
// source's or a provider block's) as a provider schema describes it, the
// way Terraform reads it:
//
//   - Spec is the hcldec specification of a schema block.
//   - Fixup accepts the two forms of an argument that older (SDKv2)
//     providers declare as a list or set of objects: the attribute form
//     (ingress = [{...}], ingress = []) and the block form, one nested
//     block per element (ingress { ... } ingress { ... }, or dynamic
//     "ingress" blocks), at every nesting level.
//   - Expand expands dynamic blocks at every depth (ext/dynblock), with
//     Tether's rule for collections of unknown length.
//   - Variables lists the references of a body with dynamic blocks
//     expanded at any depth and attributes written as blocks looked into,
//     for the dependency graph.
//   - HasDynamic says whether a body has a dynamic block at any depth, so
//     that only those bodies pay for ext/dynblock's expansion.
//
// An argument written in both forms in one body is the error Terraform
// gives: HCL's "Unsupported block type" at the blocks, since the attribute
// form wins.
package schemabody
