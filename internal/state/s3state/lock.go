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

	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

func lockInfoFor(op string) state.LockInfo { return state.LockInfo{Operation: op}.Filled() }

// heldLock is a lock this store holds.
type heldLock struct {
	info state.LockInfo
	body []byte
}

func (b *Backend) lockKey(ws string) string { return b.path(ws) + lockSuffix }
func (b *Backend) lockID(ws string) string  { return b.cfg.Bucket + "/" + b.path(ws) }

// Lock takes the lock file (If-None-Match: *) and, with dynamodb_table,
// Terraform's DynamoDB lock item; then folds in a journal a crashed run
// left.
func (s *Store) Lock(ctx context.Context, info state.LockInfo) (state.Unlocker, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	info = info.Filled()
	b := s.b
	body, _ := json.Marshal(statedoc.NewLockInfo(info, b.lockID(s.ws)))
	if err := b.put(ctx, b.lockKey(s.ws), body, true); err != nil {
		if !isPreconditionFailed(err) {
			return nil, err
		}
		return nil, s.lockedError(ctx, b.objectName(b.lockKey(s.ws)))
	}
	if b.c.ddb != nil {
		_, err := b.c.ddb.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(b.cfg.DynamoDBTable),
			Item: map[string]ddbtypes.AttributeValue{
				"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(s.ws)},
				"Info":   &ddbtypes.AttributeValueMemberS{Value: string(body)},
			},
			ConditionExpression: aws.String("attribute_not_exists(LockID)"),
		})
		if err != nil {
			b.delete(context.Background(), b.lockKey(s.ws))
			var cf *ddbtypes.ConditionalCheckFailedException
			if errors.As(err, &cf) {
				return nil, s.lockedError(ctx, b.dynamoWhere(s.ws))
			}
			return nil, b.fail("taking the lock item "+b.dynamoWhere(s.ws), err)
		}
	}
	held := &heldLock{info: info, body: body}
	s.mu.Lock()
	s.held = held
	s.mu.Unlock()
	next, _, err := b.compact(ctx, s.ws)
	if err != nil {
		u := &unlocker{s: s, held: held}
		u.release(context.Background())
		return nil, err
	}
	s.mu.Lock()
	s.next = next
	s.mu.Unlock()
	return &unlocker{s: s, held: held}, nil
}

func (b *Backend) dynamoWhere(ws string) string {
	return fmt.Sprintf("DynamoDB table %q, item LockID %q", b.cfg.DynamoDBTable, b.lockID(ws))
}

// lockedError names who holds the lock refused at where.
func (s *Store) lockedError(ctx context.Context, where string) error {
	h, err := s.b.holder(ctx, s.ws)
	if err != nil {
		return fmt.Errorf("%s: the lock is held (%s), and reading who holds it failed: %w", s.where, where, err)
	}
	if h == nil {
		return fmt.Errorf("%s: the lock is held (%s), and was released while reading who holds it; try again", s.where, where)
	}
	return statedoc.LockedError(fmt.Sprintf("%s (lock: %s)", s.where, where), *h)
}

// holder reads the lock: the lock file, else the DynamoDB item; nil when
// neither is there.
func (b *Backend) holder(ctx context.Context, ws string) (*statedoc.LockInfo, error) {
	body, _, err := b.get(ctx, b.lockKey(ws))
	if err != nil && !isNotFound(err) {
		return nil, err
	}
	if err == nil {
		l := &statedoc.LockInfo{}
		if err := json.Unmarshal(body, l); err != nil {
			return nil, &CorruptError{Object: b.objectName(b.lockKey(ws)), Reason: "is not a readable lock file"}
		}
		return l, nil
	}
	if b.c.ddb == nil {
		return nil, nil
	}
	out, err := b.c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(b.cfg.DynamoDBTable),
		Key:            map[string]ddbtypes.AttributeValue{"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, b.fail("reading the lock item "+b.dynamoWhere(ws), err)
	}
	v, ok := out.Item["Info"].(*ddbtypes.AttributeValueMemberS)
	if !ok {
		return nil, nil
	}
	l := &statedoc.LockInfo{}
	if err := json.Unmarshal([]byte(v.Value), l); err != nil {
		return nil, fmt.Errorf("%s holds an unreadable Info: %v", b.dynamoWhere(ws), err)
	}
	return l, nil
}

// checkHeld fails with a *state.LockLostError unless the lock is still
// the one held.
func (b *Backend) checkHeld(ctx context.Context, ws string, held *heldLock) error {
	h, err := b.holder(ctx, ws)
	if err != nil {
		return err
	}
	if h != nil && h.ID == held.info.ID {
		if b.c.ddb == nil {
			return nil
		}
		// The lock file is ours; the item must be too.
		out, err := b.c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String(b.cfg.DynamoDBTable),
			Key:            map[string]ddbtypes.AttributeValue{"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)}},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return b.fail("reading the lock item "+b.dynamoWhere(ws), err)
		}
		if v, ok := out.Item["Info"].(*ddbtypes.AttributeValueMemberS); ok && v.Value == string(held.body) {
			return nil
		}
		h = nil
	}
	e := &state.LockLostError{Path: b.objectName(b.path(ws)), ID: held.info.ID}
	if h != nil {
		hl := h.Holder()
		e.Holder = &hl
	}
	return e
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
	return b.fail("writing the digest item in "+fmt.Sprintf("DynamoDB table %q", b.cfg.DynamoDBTable), err)
}

type unlocker struct {
	s    *Store
	held *heldLock
}

// Unlock folds the journal into the document, then releases the lock.
func (u *unlocker) Unlock() error {
	ctx := context.Background()
	s := u.s
	s.mu.Lock()
	mine := s.held == u.held
	deleted := s.deleted
	s.mu.Unlock()
	if !mine {
		return nil
	}
	if !deleted {
		if err := s.b.checkHeld(ctx, s.ws, u.held); err != nil {
			return err
		}
		if _, _, err := s.b.compact(ctx, s.ws); err != nil {
			return fmt.Errorf("%s: folding the journal into the state object (it stays, and the next run folds it in): %w", s.where, err)
		}
	}
	return u.release(ctx)
}

func (u *unlocker) release(ctx context.Context) error {
	s := u.s
	s.mu.Lock()
	if s.held == u.held {
		s.held = nil
	}
	s.mu.Unlock()
	h, err := s.b.holder(ctx, s.ws)
	if err != nil {
		return err
	}
	if h == nil || h.ID != u.held.info.ID {
		return fmt.Errorf("%s: lock %s: %w; it was probably broken with `tether state unlock`", s.where, u.held.info.ID, state.ErrLockNotHeld)
	}
	return s.b.dropLock(ctx, s.ws)
}

// dropLock deletes the DynamoDB item, then the lock file.
func (b *Backend) dropLock(ctx context.Context, ws string) error {
	if b.c.ddb != nil {
		_, err := b.c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(b.cfg.DynamoDBTable),
			Key:       map[string]ddbtypes.AttributeValue{"LockID": &ddbtypes.AttributeValueMemberS{Value: b.lockID(ws)}},
		})
		if err != nil {
			return b.fail("deleting the lock item "+b.dynamoWhere(ws), err)
		}
	}
	return b.delete(ctx, b.lockKey(ws))
}

// ForceUnlock breaks the lock, Terraform's as well as Tether's.
func (s *Store) ForceUnlock(ctx context.Context, id string) (*state.LockInfo, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	h, err := s.b.holder(ctx, s.ws)
	if err != nil || h == nil {
		return nil, err
	}
	hl := h.Holder()
	if id != "" && h.ID != id {
		return nil, &state.LockIDError{ID: id, Holder: hl}
	}
	if err := s.b.dropLock(ctx, s.ws); err != nil {
		return nil, err
	}
	return &hl, nil
}
