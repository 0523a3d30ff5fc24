// Package aws lowers a configuration onto Amazon Web Services: it turns
// the local runtime's nodes (tether_function, tether_router, tether_route,
// tether_kv) into the hashicorp/aws resources that do the same work there.
// A handler closure's function becomes an aws_lambda_function running the
// program itself (built for linux/amd64 as bootstrap, zipped), with its
// IAM role and log group; a router becomes an API Gateway HTTP API with a
// route, a Lambda integration and a permission per tether_route and a
// $default stage; a store becomes a DynamoDB table.
//
// Nodes that read what was lowered keep their own expressions: they are
// evaluated with a scope in which the lowered node's address answers with
// the same attributes computed from the AWS resources (a router's url is
// the API's endpoint, a store's endpoint is dynamodb://TABLE?region=R), so
// the environment rule of closures is unchanged. What the platform cannot
// express (a function running a command, a port) is an error naming the
// resource, never a silent fall back to this machine.
package aws
