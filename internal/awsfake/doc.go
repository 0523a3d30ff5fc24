// Package awsfake is an AWS control plane for tests: one HTTP server on
// 127.0.0.1 that serves what the hashicorp/aws provider (5.100) calls to
// create, read and delete the resources the aws platform deploys, so that
// `tether up --platform aws` runs against it with AWS_ENDPOINT_URL set
// and no network.
//
// It serves IAM roles, their policy attachments and inline policies (the
// Query protocol), CloudWatch Logs log groups (JSON 1.1), Lambda functions,
// their permissions and URLs (REST JSON), API Gateway v2 HTTP APIs with
// their stages, routes and integrations (REST JSON), and DynamoDB tables,
// control and data plane, by internal/dynamofake on one table store;
// and STS (sts.go): GetCallerIdentity, AssumeRole of a role that exists
// (Server.AddRole, or IAM's CreateRole) and AssumeRoleWithWebIdentity with
// WebIdentityToken, each session handing out a temporary key of its own
// that STS then knows, and that Server.Sessions reports with what the
// caller asked for. It chooses the service by the SigV4 credential scope
// of each request. Requests must carry the server's access key (STS also
// a session's, with its token); signatures are checked for DynamoDB only. An operation it does not serve is a 400 naming it, never
// an empty success.
//
// Each API is served on a port of its own, its endpoint: a request there
// is routed by the API's routes to its Lambda integration, and the
// function's zip is run under the Lambda Runtime Interface Emulator
// (Options.Emulator) with an API Gateway payload 2.0 event, so the
// deployed program answers. A function URL is a port of its own too. The
// function runs with the region, the fake's credentials standing for its
// role's and AWS_ENDPOINT_URL_DYNAMODB pointing at the fake, so a store
// it opens is the fake's table.
package awsfake
