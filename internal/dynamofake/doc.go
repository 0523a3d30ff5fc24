// Package dynamofake is a DynamoDB for tests: an HTTP server on 127.0.0.1
// that speaks DynamoDB's wire protocol (JSON 1.0, X-Amz-Target
// DynamoDB_20120810.*), so that aws-sdk-go-v2's client, pointed at it with
// AWS_ENDPOINT_URL_DYNAMODB, runs unchanged.
//
// It serves GetItem, PutItem, DeleteItem and DescribeTable on tables of
// one string or binary hash key, made with CreateTable (the Go method or
// the operation), in one region; and the rest of what hashicorp/aws calls
// for an aws_dynamodb_table billed per request: DeleteTable,
// DescribeContinuousBackups, DescribeTimeToLive, ListTagsOfResource,
// TagResource and UntagResource. It
// checks what DynamoDB checks for those: a SigV4 signature with the
// server's own credentials, scoped to its region and to dynamodb; table
// names; keys against the key schema; items of at most 400 KB. It answers
// DynamoDB's error shapes (ResourceNotFoundException, ValidationException,
// UnrecognizedClientException, InvalidSignatureException...), with an
// X-Amz-Crc32 checksum as DynamoDB does. A request it does not serve
// (another operation, a parameter such as a condition or a projection)
// is refused with a ValidationException saying so, never ignored. Of
// conditions and projections it serves what lock clients send (Terraform's
// s3 backend among them): a PutItem ConditionExpression
// attribute_not_exists(NAME), failed with ConditionalCheckFailedException,
// and a GetItem ProjectionExpression of plain attribute names.
//
// No module the Go proxy serves runs a DynamoDB emulator in-process, and
// DynamoDB Local's licence rules it out; this package is the small part
// of DynamoDB that Tether's clients use.
package dynamofake
