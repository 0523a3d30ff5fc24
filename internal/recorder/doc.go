// Package recorder is a recording provider: a Terraform provider plugin
// that starts a real provider plugin, serves the plugin protocol to its own
// caller (Terraform or Tether) in the real provider's protocol version, and
// forwards every gRPC call to it, appending each call's request and
// response to a log of JSON lines (Entry). Values travel as MessagePack
// bound to the provider's schema; the log has them decoded with that
// schema, so that the logs of two tools are comparable field by field.
//
// It exists for the protocol-level differential (cmd/tether/aws/awsdiff_test.go):
// Terraform and Tether each run a configuration through it, and their
// request streams per resource and method must match.
//
// In mock mode (Config.Mock) the wrapper answers the calls that would touch
// a cloud itself: ApplyResourceChange, ReadResource, ImportResourceState and
// ReadDataSource. The schema, validation, ConfigureProvider and
// PlanResourceChange stay the real provider's, so plans are real while
// nothing leaves the machine; so do reads of the data sources
// Config.RealData names, which compute locally (a policy document, the
// partition) and whose stand-ins would make the values built from them
// invalid. mock.go says how it fills the values a plan
// left unknown; the rules follow Terraform's test framework's mock
// providers (deterministic here: the same call gets the same values from
// either tool).
//
// The forwarding is generic: the wrapper registers no protocol service but
// handles every call as unknown, passing the frames through undecoded
// (codec.go), so calls it does not know (new RPCs, streams) still work.
// It decodes a message only to log it, through protobuf reflection over
// the generated descriptors of internal/plugin/tfplugin5 and tfplugin6,
// which serves both protocol versions with one code path.
//
// The binary is recording-provider (its main is in the folder of that
// name); it is configured by environment variables (Config, FromEnv).
package recorder
