package s3state

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tetherhq/tether/internal/state/objstate"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

// locker is Terraform's s3 lock: the lock file PATH.tflock (what
// use_lockfile = true makes Terraform take), always, and with
// dynamodb_table the item whose LockID is BUCKET/PATH, both in
// Terraform's format.
type locker struct {
	b    *Backend
	file *objstate.LockFile
}

func (b *Backend) locker(ob *objstate.Backend) objstate.Locker {
	return &locker{b: b, file: &objstate.LockFile{B: ob,
		Key:    func(ws string) string { return b.path(ws) + lockSuffix },
		Record: b.lockID,
	}}
}

func (b *Backend) lockID(ws string) string { return b.cfg.Bucket + "/" + b.path(ws) }

func (l *locker) RecordPath(ws string) string { return l.b.lockID(ws) }

// Take takes the lock file, then the DynamoDB item; the lock file is
// dropped again when the item is refused.
func (l *locker) Take(ctx context.Context, ws string, record []byte) error {
	if err := l.file.Take(ctx, ws, record); err != nil {
		return err
	}
	b := l.b
	if b.c.ddb == nil {
		return nil
	}
	_, err := b.c.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(b.cfg.DynamoDBTable),
		Item: map[string]ddbtypes.AttributeValue{
			"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)},
			"Info":   &ddbtypes.AttributeValueMemberS{Value: string(record)},
		},
		ConditionExpression: aws.String("attribute_not_exists(LockID)"),
	})
	if err != nil {
		l.file.Drop(context.Background(), ws)
		var cf *ddbtypes.ConditionalCheckFailedException
		if errors.As(err, &cf) {
			return &objstate.HeldError{Where: b.dynamoWhere(ws)}
		}
		return fmt.Errorf(`the "s3" backend: taking the lock item %s: %w`, b.dynamoWhere(ws), err)
	}
	return nil
}

func (b *Backend) dynamoWhere(ws string) string {
	return fmt.Sprintf("DynamoDB table %q, item LockID %q", b.cfg.DynamoDBTable, b.lockID(ws))
}

// Holder reads the lock file, else the DynamoDB item.
func (l *locker) Holder(ctx context.Context, ws string) (*statedoc.LockInfo, error) {
	if h, err := l.file.Holder(ctx, ws); h != nil || err != nil || l.b.c.ddb == nil {
		return h, err
	}
	info, err := l.item(ctx, ws)
	if err != nil || info == "" {
		return nil, err
	}
	h := &statedoc.LockInfo{}
	if err := json.Unmarshal([]byte(info), h); err != nil {
		return nil, fmt.Errorf("%s holds an unreadable Info: %v", l.b.dynamoWhere(ws), err)
	}
	return h, nil
}

// item reads the DynamoDB lock item's Info, "" when there is none.
func (l *locker) item(ctx context.Context, ws string) (string, error) {
	b := l.b
	out, err := b.c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(b.cfg.DynamoDBTable),
		Key:            map[string]ddbtypes.AttributeValue{"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", fmt.Errorf(`the "s3" backend: reading the lock item %s: %w`, b.dynamoWhere(ws), err)
	}
	if v, ok := out.Item["Info"].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value, nil
	}
	return "", nil
}

// Holds: the lock file is ours, and so is the item.
func (l *locker) Holds(ctx context.Context, ws string, record []byte) (bool, error) {
	ok, err := l.file.Holds(ctx, ws, record)
	if !ok || err != nil || l.b.c.ddb == nil {
		return ok, err
	}
	info, err := l.item(ctx, ws)
	return info == string(record), err
}

// Drop deletes the DynamoDB item, then the lock file.
func (l *locker) Drop(ctx context.Context, ws string) error {
	b := l.b
	if b.c.ddb != nil {
		_, err := b.c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(b.cfg.DynamoDBTable),
			Key:       map[string]ddbtypes.AttributeValue{"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)}},
		})
		if err != nil {
			return fmt.Errorf(`the "s3" backend: deleting the lock item %s: %w`, b.dynamoWhere(ws), err)
		}
	}
	return l.file.Drop(ctx, ws)
}

// putDigest keeps Terraform's digest item (LockID PATH-md5) current with
// the document written at p, so that Terraform reports what the object
// holds, not a checksum mismatch.
func (b *Backend) putDigest(ctx context.Context, p string, body []byte) error {
	if b.c.ddb == nil {
		return nil
	}
	sum := md5.Sum(body)
	_, err := b.c.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(b.cfg.DynamoDBTable),
		Item: map[string]ddbtypes.AttributeValue{
			"LockID": &ddbtypes.AttributeValueMemberS{Value: b.cfg.Bucket + "/" + p + "-md5"},
			"Digest": &ddbtypes.AttributeValueMemberS{Value: hex.EncodeToString(sum[:])},
		},
	})
	if err != nil {
		return fmt.Errorf(`the "s3" backend: writing the digest item in DynamoDB table %q: %w`, b.cfg.DynamoDBTable, err)
	}
	return nil
}
