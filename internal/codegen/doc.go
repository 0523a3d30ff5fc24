// Package codegen turns a provider schema into a package of typed Go
// bindings for the Tether Go SDK: per resource type an args struct, a
// constructor and attribute getters returning lazy values; per data source
// a direct form and an output form; and the provider's configuration. The
// output is gofmt'ed and depends only on the schema and the options.
//
// Schema names become Go names by these rules, so that every schema yields
// code that compiles:
//
//   - snake_case becomes CamelCase with golint's initialisms in capitals
//     (instance_id → InstanceID); other punctuation separates words too.
//     Exported names cannot be Go keywords, so `type` is simply Type.
//   - A name with no letters or digits becomes X; one that starts with a
//     digit gets the prefix X (3d_mode → X3dMode).
//   - When two schema names map to the same Go name within one struct
//     (foo_bar and foo__bar), the first in schema-name order keeps it and
//     each later one gets the lowest free numeric suffix from 2: foo__bar
//     is FooBar, foo_bar FooBar2.
//   - Within a package, the types with the shorter Go names choose first
//     (resources before data sources, then in schema-name order), and a
//     type's names go together: aws_thing keeps Thing, NewThing and
//     ThingArgs, so aws_thing_args becomes ThingArgs2 (NewThingArgs2,
//     ThingArgs2Args) and aws_new_thing NewThing2. Nested block and object
//     types are named last, after their owner (ThingRule, or ThingRule2
//     when a type took that name).
//   - The getter of an attribute named like the embedded SDK field
//     (Resource, or DataSource on data source results) gets the suffix 2.
//   - A package name that is a Go keyword or predeclared identifier, or
//     is tether, gets the suffix x (typex).
//   - A file name ending in a GOOS, a GOARCH or _test gets a trailing
//     underscore, so the go command does not read it as a build constraint.
//
// Fields get their Go types from FieldType, the one rule for every
// binding: optional strings and bools are pointers (nil is unset, any value
// is sent), numbers are the exact tether.Number, required fields are plain;
// ArgType makes a number argument a tether.NumberInput, which a getter's
// Output[tether.Number] is too.
//
// Large providers are split by the first word after the provider prefix
// (aws_s3_bucket goes to package s3 as Bucket) so that a program compiles
// only the groups it imports; see Split.
package codegen
