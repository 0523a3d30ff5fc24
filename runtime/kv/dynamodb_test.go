package kv_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/runtime/kv"
)

// The ways a DynamoDB store fails that the local one cannot: each error
// names the table, the region, or what else is wrong.
func TestDynamoDBErrors(t *testing.T) {
	cases := []struct {
		name     string
		endpoint string
		env      []string
		want     string // the error of Open, or else of Get
	}{
		{"missing table", "dynamodb://no-such-table?region=eu-central-1", nil,
			`kv: get "k": DynamoDB table "no-such-table" in region eu-central-1 does not exist, or these credentials cannot see it (Requested resource not found)`},
		{"unknown access key", "dynamodb://tether-store?region=eu-central-1", []string{"AWS_ACCESS_KEY_ID=AKIDOTHER"},
			`kv: get "k": DynamoDB table "tether-store" in region eu-central-1: the AWS credentials or region were refused: The security token included in the request is invalid. (UnrecognizedClientException)`},
		{"wrong secret", "dynamodb://tether-store?region=eu-central-1", []string{"AWS_SECRET_ACCESS_KEY=wrong"},
			`kv: get "k": DynamoDB table "tether-store" in region eu-central-1: the AWS credentials or region were refused: The request signature we calculated does not match the signature you provided.`},
		{"no credentials", "dynamodb://tether-store?region=eu-central-1", []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="},
			`kv: get "k": DynamoDB table "tether-store" in region eu-central-1: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with a role`},
		{"wrong region", "dynamodb://tether-store?region=us-west-2", nil,
			`kv: get "k": DynamoDB table "tether-store" in region us-west-2: the AWS credentials or region were refused: Credential should be scoped to a valid region, not 'us-west-2'.`},
		{"region from the environment", "dynamodb://tether-store", []string{"AWS_REGION=ap-south-1"},
			`kv: get "k": DynamoDB table "tether-store" in region ap-south-1: the AWS credentials or region were refused: Credential should be scoped to a valid region, not 'ap-south-1'.`},
		{"no region", "dynamodb://tether-store", []string{"AWS_REGION=", "AWS_DEFAULT_REGION="},
			`kv: endpoint "dynamodb://tether-store" names no region and neither does the environment: add ?region=REGION or set AWS_REGION`},
		{"bad table name", "dynamodb://ab?region=eu-central-1", nil,
			`kv: endpoint "dynamodb://ab?region=eu-central-1" is not dynamodb://TABLE?region=REGION, where TABLE is a DynamoDB table name: 3 to 255 letters, digits, '_', '-' and '.'`},
		{"a path", "dynamodb://tether-store/x?region=eu-central-1", nil,
			`kv: endpoint "dynamodb://tether-store/x?region=eu-central-1" is not dynamodb://TABLE?region=REGION`},
		{"unknown parameter", "dynamodb://tether-store?region=eu-central-1&consistent=false", nil,
			`kv: endpoint "dynamodb://tether-store?region=eu-central-1&consistent=false": unknown parameter "consistent"; a DynamoDB endpoint takes only region`},
		{"empty region", "dynamodb://tether-store?region=", nil,
			`kv: endpoint "dynamodb://tether-store?region=": region must be given once, not empty`},
		{"another scheme", "s3://bucket", nil,
			`kv: endpoint "s3://bucket" is neither an http URL such as http://127.0.0.1:8080 nor a DynamoDB table as dynamodb://TABLE?region=REGION`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			startDynamo(t, c.env...)
			client, err := kv.Open(c.endpoint)
			if err == nil {
				_, err = client.Get(context.Background(), "k")
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}

// An item the client did not write, and a DynamoDB that does not answer.
func TestDynamoDBOddities(t *testing.T) {
	ddb := startDynamo(t)
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = dynamodb.NewFromConfig(cfg).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tether-store"), Item: map[string]types.AttributeValue{
		"key": &types.AttributeValueMemberS{Value: "k"}, "value": &types.AttributeValueMemberS{Value: "text"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := kv.Open("dynamodb://tether-store?region=eu-central-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "k")
	if want := `kv: get "k": the item in DynamoDB table "tether-store" has no binary attribute "value": was it written by something other than this client?`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}

	ddb.Close()
	_, err = c.Get(context.Background(), "k")
	if err == nil || !strings.HasPrefix(err.Error(), `kv: get "k": DynamoDB table "tether-store" in region eu-central-1: operation error DynamoDB: GetItem`) ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a stopped DynamoDB: %v", err)
	}
}

// startDynamo starts a fake DynamoDB in eu-central-1 with the table
// tether-store, and points the AWS SDK at it, with env set after.
func startDynamo(t *testing.T, env ...string) *dynamofake.Server {
	t.Helper()
	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-central-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ddb.Close() })
	if err := ddb.CreateTable("tether-store", "key", "S"); err != nil {
		t.Fatal(err)
	}
	for _, kv := range append(ddb.Env(), env...) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return ddb
}
