package kv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// The attributes of an item: the table's hash key, a string, and the
// value, binary.
const (
	keyAttr   = "key"
	valueAttr = "value"
)

// dynamoStore is a DynamoDB table whose hash key is the string attribute
// "key"; each value is the binary attribute "value" of its item.
type dynamoStore struct {
	table, region string
	creds         aws.CredentialsProvider
	db            *dynamodb.Client
}

// dynamoHTTP is the HTTP client of every DynamoDB store: a handler that
// opens its store on each request still reuses connections. As for the
// local store, a bound keeps an unreachable endpoint from hanging the
// function that calls it.
var dynamoHTTP = awshttp.NewBuildableClient().WithTimeout(30 * time.Second)

// tableName is DynamoDB's rule for table names: 3 to 255 letters,
// digits, '_', '-' and '.'. Not a regular expression: every tether process
// links this package, and compiling `^[A-Za-z0-9_.-]{3,255}$` (255 copies
// of the class) was 0.6 ms and 3,300 allocations of each one's start.
func tableName(s string) bool {
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

func openDynamoDB(endpoint string, u *url.URL) (*dynamoStore, error) {
	table := u.Host
	if u.User != nil || u.Port() != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" || !tableName(table) {
		return nil, fmt.Errorf("kv: endpoint %q is not dynamodb://TABLE?region=REGION, where TABLE is a DynamoDB table name: 3 to 255 letters, digits, '_', '-' and '.'", endpoint)
	}
	q := u.Query()
	for name := range q {
		if name != "region" {
			return nil, fmt.Errorf("kv: endpoint %q: unknown parameter %q; a DynamoDB endpoint takes only region", endpoint, name)
		}
	}
	if len(q["region"]) > 1 || (q.Has("region") && q.Get("region") == "") {
		return nil, fmt.Errorf("kv: endpoint %q: region must be given once, not empty", endpoint)
	}
	// Credentials come from the environment as everywhere in AWS: in
	// Lambda, the function's role through AWS_ACCESS_KEY_ID and friends.
	// AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) points the client
	// elsewhere, such as a DynamoDB on this machine for tests.
	opts := []func(*config.LoadOptions) error{config.WithHTTPClient(dynamoHTTP)}
	if r := q.Get("region"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	cfg, err := config.LoadDefaultConfig(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("kv: endpoint %q: cannot read the AWS configuration: %w", endpoint, err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("kv: endpoint %q names no region and neither does the environment: add ?region=REGION or set AWS_REGION", endpoint)
	}
	return &dynamoStore{table: table, region: cfg.Region, creds: cfg.Credentials, db: dynamodb.NewFromConfig(cfg)}, nil
}

func (s *dynamoStore) get(ctx context.Context, key string) ([]byte, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table,
		Key:       s.key(key),
		// As the local store: a Get sees every Put that returned before it.
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	v, ok := out.Item[valueAttr].(*types.AttributeValueMemberB)
	if !ok {
		return nil, fmt.Errorf("the item in DynamoDB table %q has no binary attribute %q: was it written by something other than this client?", s.table, valueAttr)
	}
	if v.Value == nil {
		return []byte{}, nil
	}
	return v.Value, nil
}

func (s *dynamoStore) put(ctx context.Context, key string, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table,
		Item: map[string]types.AttributeValue{
			keyAttr:   &types.AttributeValueMemberS{Value: key},
			valueAttr: &types.AttributeValueMemberB{Value: value},
		},
	})
	return s.fail(ctx, err)
}

func (s *dynamoStore) delete(ctx context.Context, key string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: s.key(key)})
	return s.fail(ctx, err)
}

func (s *dynamoStore) key(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{keyAttr: &types.AttributeValueMemberS{Value: key}}
}

// fail turns the SDK's error into one that names the table and region
// and, where it can tell, what to change.
func (s *dynamoStore) fail(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	where := fmt.Sprintf("DynamoDB table %q in region %s", s.table, s.region)
	var api smithy.APIError
	if !errors.As(err, &api) {
		// No answer from DynamoDB. Say so when the reason is that there are
		// no credentials to sign with: the SDK's message lists every place
		// it looked, which hides the point.
		if _, cerr := s.creds.Retrieve(ctx); cerr != nil {
			return fmt.Errorf("%s: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with a role (%w)", where, cerr)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	switch api.ErrorCode() {
	case "ResourceNotFoundException":
		return fmt.Errorf("%s does not exist, or these credentials cannot see it (%s)", where, api.ErrorMessage())
	case "UnrecognizedClientException", "InvalidSignatureException", "MissingAuthenticationTokenException", "IncompleteSignatureException":
		return fmt.Errorf("%s: the AWS credentials or region were refused: %s (%s)", where, strings.TrimSpace(api.ErrorMessage()), api.ErrorCode())
	case "AccessDeniedException":
		return fmt.Errorf("%s: access denied: the role needs dynamodb:GetItem, dynamodb:PutItem and dynamodb:DeleteItem on the table (%s)", where, api.ErrorMessage())
	}
	return fmt.Errorf("%s: %s: %s", where, api.ErrorCode(), api.ErrorMessage())
}
