// Package awslambda serves a Go program's handler inside AWS Lambda: it
// speaks the Lambda Runtime API (through github.com/aws/aws-lambda-go),
// turns each API Gateway HTTP API event (payload format 2.0) into an
// http.Request, and what the handler writes into the event's response,
// so that a router's handlers are the same http.HandlerFuncs on every
// platform.
package awslambda
