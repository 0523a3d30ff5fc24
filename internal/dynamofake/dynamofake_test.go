package dynamofake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tetherhq/tether/internal/dynamofake"
)

func start(t *testing.T, opts dynamofake.Options) *dynamofake.Server {
	t.Helper()
	s, err := dynamofake.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateTable("things", "key", "S"); err != nil {
		t.Fatal(err)
	}
	return s
}

// client is aws-sdk-go-v2's DynamoDB client configured from the server's
// environment, with change applied to it first.
func client(t *testing.T, s *dynamofake.Server, change ...string) *dynamodb.Client {
	t.Helper()
	for _, kv := range append(s.Env(), change...) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRetryMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg)
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// The SDK's own client round-trips items through the fake, and the fake
// holds them as DynamoDB's JSON.
func TestItems(t *testing.T) {
	s := start(t, dynamofake.Options{Region: "eu-west-3", SessionToken: "session"})
	db := client(t, s)
	ctx := context.Background()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"), Item: map[string]types.AttributeValue{
		"key": str("a/ü"), "value": &types.AttributeValueMemberB{Value: []byte{0, 1, 255}}, "n": &types.AttributeValueMemberN{Value: "12.5"},
	}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Item("things", "a/ü"); got != `{"key":{"S":"a/ü"},"n":{"N":"12.5"},"value":{"B":"AAH/"}}` {
		t.Errorf("stored %s", got)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": str("a/ü")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := out.Item["value"].(*types.AttributeValueMemberB); !ok || !bytes.Equal(b.Value, []byte{0, 1, 255}) {
		t.Errorf("GetItem returned %#v", out.Item)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": str("a/ü")}}); err != nil {
		t.Fatal(err)
	}
	out, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": str("a/ü")}})
	if err != nil || out.Item != nil {
		t.Errorf("GetItem after DeleteItem: %#v %v", out.Item, err)
	}
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("things")})
	if err != nil {
		t.Fatal(err)
	}
	if tb := desc.Table; *tb.TableArn != "arn:aws:dynamodb:eu-west-3:123456789012:table/things" || tb.TableStatus != types.TableStatusActive ||
		*tb.KeySchema[0].AttributeName != "key" || tb.KeySchema[0].KeyType != types.KeyTypeHash {
		t.Errorf("DescribeTable: %+v", tb)
	}
}

// Each refusal comes back as the SDK sees DynamoDB's: its error code and
// message.
func TestRefusals(t *testing.T) {
	s := start(t, dynamofake.Options{Region: "eu-west-3"})
	big := bytes.Repeat([]byte("x"), 400<<10)
	cases := []struct {
		name   string
		env    []string
		call   func(*dynamodb.Client) error
		code   string
		prefix string
	}{
		{"missing table", nil, func(db *dynamodb.Client) error { return get(db, "nothere", "k") },
			"ResourceNotFoundException", "Requested resource not found"},
		{"describe missing table", nil, func(db *dynamodb.Client) error {
			_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("nothere")})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Table: nothere not found"},
		{"bad table name", nil, func(db *dynamodb.Client) error { return get(db, "a b c", "k") },
			"ValidationException", "1 validation error detected: Value 'a b c' at 'tableName'"},
		{"key of another type", nil, func(db *dynamodb.Client) error {
			_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": &types.AttributeValueMemberB{Value: []byte("k")}}})
			return err
		}, "ValidationException", "The provided key element does not match the schema"},
		{"empty key", nil, func(db *dynamodb.Client) error { return get(db, "things", "") },
			"ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value."},
		{"long key", nil, func(db *dynamodb.Client) error { return get(db, "things", strings.Repeat("k", 2049)) },
			"ValidationException", "One or more parameter values were invalid: Size of hashkey has exceeded"},
		{"item without its key", nil, func(db *dynamodb.Client) error {
			return put(db, map[string]types.AttributeValue{"other": str("k")})
		}, "ValidationException", "One or more parameter values were invalid: Missing the key key in the item"},
		{"item too large", nil, func(db *dynamodb.Client) error {
			return put(db, map[string]types.AttributeValue{"key": str("k"), "value": &types.AttributeValueMemberB{Value: big}})
		}, "ValidationException", "Item size has exceeded the maximum allowed size"},
		{"a parameter the fake does not serve", nil, func(db *dynamodb.Client) error {
			_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": str("k")}, ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": "v"}})
			return err
		}, "ValidationException", "dynamofake does not serve the parameters ExpressionAttributeNames of GetItem"},
		{"an operation the fake does not serve", nil, func(db *dynamodb.Client) error {
			_, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("things")})
			return err
		}, "UnknownOperationException", "dynamofake does not serve Scan"},
		{"unknown access key", []string{"AWS_ACCESS_KEY_ID=AKIDOTHER"}, func(db *dynamodb.Client) error { return get(db, "things", "k") },
			"UnrecognizedClientException", "The security token included in the request is invalid."},
		{"unexpected session token", []string{"AWS_SESSION_TOKEN=token"}, func(db *dynamodb.Client) error { return get(db, "things", "k") },
			"UnrecognizedClientException", "The security token included in the request is invalid."},
		{"wrong secret", []string{"AWS_SECRET_ACCESS_KEY=wrong"}, func(db *dynamodb.Client) error { return get(db, "things", "k") },
			"InvalidSignatureException", "The request signature we calculated does not match the signature you provided."},
		{"wrong region", []string{"AWS_REGION=us-west-2"}, func(db *dynamodb.Client) error { return get(db, "things", "k") },
			"InvalidSignatureException", "Credential should be scoped to a valid region, not 'us-west-2'."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.Requests()
			err := c.call(client(t, s, c.env...))
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != c.code || !strings.HasPrefix(api.ErrorMessage(), c.prefix) {
				t.Errorf("got %v, want %s: %s...", err, c.code, c.prefix)
			}
			if n := s.Requests() - before; n != 1 {
				t.Errorf("the SDK sent %d requests, want 1 (a refusal that invites a retry?)", n)
			}
		})
	}
}

func get(db *dynamodb.Client, tableName, key string) error {
	_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: map[string]types.AttributeValue{"key": str(key)}})
	return err
}

func put(db *dynamodb.Client, it map[string]types.AttributeValue) error {
	_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("things"), Item: it})
	return err
}

// What an unsigned request gets, on the wire: DynamoDB's error body and
// its checksum header.
func TestUnsignedRequest(t *testing.T) {
	s := start(t, dynamofake.Options{})
	req, _ := http.NewRequest("POST", s.URL+"/", strings.NewReader(`{"TableName":"things"}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var got map[string]string
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || got["__type"] != "com.amazon.coral.service#MissingAuthenticationTokenException" ||
		got["message"] != "Request is missing Authentication Token" || resp.Header.Get("X-Amz-Crc32") == "" {
		t.Errorf("answered %d %s %v", resp.StatusCode, body, resp.Header)
	}
}

// TestAlsoCredentials checks that further credentials are accepted each
// with its own secret and session token, as a function's role's are
// beside the deployer's, and only so.
func TestAlsoCredentials(t *testing.T) {
	role := dynamofake.Credentials{AccessKeyID: "ASIAROLE", SecretAccessKey: "role-secret", SessionToken: "role-session"}
	s := start(t, dynamofake.Options{Region: "eu-west-3", Also: []dynamofake.Credentials{role}})
	asRole := []string{"AWS_ACCESS_KEY_ID=" + role.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + role.SecretAccessKey, "AWS_SESSION_TOKEN=" + role.SessionToken}
	if err := get(client(t, s, asRole...), "things", "k"); err != nil {
		t.Errorf("with the role's credentials: %v", err)
	}
	if err := get(client(t, s), "things", "k"); err != nil {
		t.Errorf("with the server's credentials: %v", err)
	}
	for name, change := range map[string][]string{
		"role without its token":      asRole[:2],
		"role with the server secret": {asRole[0], "AWS_SECRET_ACCESS_KEY=" + s.Options().SecretAccessKey, asRole[2]},
	} {
		var api smithy.APIError
		if err := get(client(t, s, change...), "things", "k"); !errors.As(err, &api) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}

// A lock's create-only put succeeds once, fails with DynamoDB's
// ConditionalCheckFailedException after, and a projection returns only
// the attributes named, as lock clients (Terraform's s3 backend) use them.
func TestConditionAndProjection(t *testing.T) {
	s := start(t, dynamofake.Options{Region: "eu-west-3"})
	db := client(t, s)
	ctx := context.Background()
	put := func() error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"),
			Item:                map[string]types.AttributeValue{"key": str("lock"), "Info": str("held")},
			ConditionExpression: aws.String("attribute_not_exists(key)")})
		return err
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}
	var cf *types.ConditionalCheckFailedException
	if err := put(); !errors.As(err, &cf) {
		t.Fatalf("second create-only put: %v, want ConditionalCheckFailedException", err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"key": str("lock")}, ProjectionExpression: aws.String("key, Missing")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.Item["Info"]; ok || len(out.Item) != 1 {
		t.Errorf("projection returned %#v, want key only", out.Item)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"),
		Item:                map[string]types.AttributeValue{"key": str("lock")},
		ConditionExpression: aws.String("Info = :x")})
	if err == nil || !strings.Contains(err.Error(), "attribute_not_exists(NAME) only") {
		t.Errorf("an unserved condition: %v, want refused", err)
	}
}
