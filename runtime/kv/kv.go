package kv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"unicode/utf8"
)

const (
	// MaxKeySize is the longest key, in bytes, the store accepts.
	MaxKeySize = 1 << 10
	// MaxValueSize is the largest value, in bytes, the store accepts: the
	// most that fits, with the longest key, in one DynamoDB item (400 KB),
	// so that a program that runs on this machine runs on AWS too.
	MaxValueSize = 384 << 10
)

// ErrNotFound is returned by Get for a key the store does not hold.
var ErrNotFound = errors.New("kv: key not found")

// Client talks to one store. It is safe for concurrent use.
type Client struct {
	store store
}

// store is where a Client's requests go: the local store over HTTP, or a
// DynamoDB table. Keys and values reach it already checked; its errors
// say what went wrong without the operation and key, which the Client
// adds.
type store interface {
	get(ctx context.Context, key string) ([]byte, error)
	put(ctx context.Context, key string, value []byte) error
	delete(ctx context.Context, key string) error
}

// Open returns a client for the store at endpoint: the local store's
// http://127.0.0.1:PORT, or dynamodb://TABLE?region=REGION on AWS. It
// checks the endpoint's form and reads the AWS configuration from the
// environment, but sends nothing: the first request is the first contact
// with the store.
func Open(endpoint string) (*Client, error) {
	if endpoint == "" {
		return nil, errors.New("kv: empty endpoint: is the environment variable that should carry it set?")
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("kv: endpoint %q is not a URL such as http://127.0.0.1:8080 or dynamodb://TABLE?region=REGION", endpoint)
	}
	var s store
	switch u.Scheme {
	case "http", "https":
		s, err = openHTTP(endpoint, u)
	case "dynamodb":
		s, err = openDynamoDB(endpoint, u)
	default:
		err = fmt.Errorf("kv: endpoint %q is neither an http URL such as http://127.0.0.1:8080 nor a DynamoDB table as dynamodb://TABLE?region=REGION", endpoint)
	}
	if err != nil {
		return nil, err
	}
	return &Client{store: s}, nil
}

// Get returns the value stored under key, or an error wrapping
// ErrNotFound when there is none.
func (c *Client) Get(ctx context.Context, key string) ([]byte, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("kv: get: %w", err)
	}
	v, err := c.store.get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("kv: get %q: %w", key, err)
	}
	return v, nil
}

// Put stores value under key, replacing what was there.
func (c *Client) Put(ctx context.Context, key string, value []byte) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("kv: put: %w", err)
	}
	if len(value) > MaxValueSize {
		return fmt.Errorf("kv: put %q: %w", key, tooLarge(len(value)))
	}
	if err := c.store.put(ctx, key, value); err != nil {
		return fmt.Errorf("kv: put %q: %w", key, err)
	}
	return nil
}

// Delete removes key. Deleting a key that is not there is not an error.
func (c *Client) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("kv: delete: %w", err)
	}
	if err := c.store.delete(ctx, key); err != nil {
		return fmt.Errorf("kv: delete %q: %w", key, err)
	}
	return nil
}

// CheckKey reports why the store would refuse key, or nil. The error does
// not repeat the key, which may be long.
func CheckKey(key string) error {
	switch {
	case key == "":
		return errors.New("the key is empty")
	case len(key) > MaxKeySize:
		return fmt.Errorf("the key is %d bytes; keys may be at most %d bytes (1 KiB)", len(key), MaxKeySize)
	case !utf8.ValidString(key):
		// DynamoDB keeps keys as UTF-8 strings: two keys that differ only
		// in invalid bytes would be one item there.
		return errors.New("the key is not valid UTF-8")
	}
	return nil
}

// tooLarge is the error for a value of n bytes, more than MaxValueSize.
func tooLarge(n int) error {
	return fmt.Errorf("the value is %d bytes; values may be at most %d bytes (%d KiB)", n, MaxValueSize, MaxValueSize>>10)
}
