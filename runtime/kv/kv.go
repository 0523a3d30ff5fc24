package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const (
	// MaxKeySize is the longest key, in bytes, the store accepts.
	MaxKeySize = 1 << 10
	// MaxValueSize is the largest value, in bytes, the store accepts.
	MaxValueSize = 1 << 20
)

// ErrNotFound is returned by Get for a key the store does not hold.
var ErrNotFound = errors.New("kv: key not found")

// Client talks to one tether_kv store. It is safe for concurrent use.
type Client struct {
	base string
	http *http.Client
}

// Open returns a client for the store at endpoint, the tether_kv's
// endpoint attribute. It checks the endpoint's form only; the first
// request is the first contact with the store.
func Open(endpoint string) (*Client, error) {
	if endpoint == "" {
		return nil, errors.New("kv: empty endpoint: is the environment variable that should carry it set?")
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kv: endpoint %q is not an http URL such as http://127.0.0.1:8080", endpoint)
	}
	return &Client{
		base: strings.TrimSuffix(u.String(), "/"),
		// A store on the same machine answers at once; a bound keeps a
		// stopped store from hanging the function that calls it.
		http: &http.Client{Timeout: 30 * time.Second},
	}, nil
}

// Get returns the value stored under key, or an error wrapping
// ErrNotFound when there is none.
func (c *Client) Get(ctx context.Context, key string) ([]byte, error) {
	resp, err := c.do(ctx, http.MethodGet, key, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxValueSize+1))
		if err != nil {
			return nil, fmt.Errorf("kv: get %q: %w", key, err)
		}
		return b, nil
	case http.StatusNotFound:
		return nil, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return nil, statusError("get", key, resp)
}

// Put stores value under key, replacing what was there.
func (c *Client) Put(ctx context.Context, key string, value []byte) error {
	if len(value) > MaxValueSize {
		return fmt.Errorf("kv: put %q: the value is %d bytes; values may be at most %d bytes (1 MiB)", key, len(value), MaxValueSize)
	}
	resp, err := c.do(ctx, http.MethodPut, key, value)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return statusError("put", key, resp)
}

// Delete removes key. Deleting a key that is not there is not an error.
func (c *Client) Delete(ctx context.Context, key string) error {
	resp, err := c.do(ctx, http.MethodDelete, key, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return statusError("delete", key, resp)
}

func (c *Client) do(ctx context.Context, method, key string, body []byte) (*http.Response, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("kv: %s: %w", strings.ToLower(method), err)
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/v1/kv/"+url.PathEscape(key), r)
	if err != nil {
		return nil, fmt.Errorf("kv: %s %q: %w", strings.ToLower(method), key, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("kv: %s %q: %w", strings.ToLower(method), key, err)
	}
	return resp, nil
}

// CheckKey reports why the store would refuse key, or nil.
func CheckKey(key string) error {
	switch {
	case key == "":
		return errors.New("the key is empty")
	case len(key) > MaxKeySize:
		return fmt.Errorf("the key is %d bytes; keys may be at most %d bytes (1 KiB)", len(key), MaxKeySize)
	}
	return nil
}

func statusError(op, key string, resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	text := strings.TrimSpace(string(msg))
	if text == "" {
		text = http.StatusText(resp.StatusCode)
	}
	return fmt.Errorf("kv: %s %q: %s (status %d)", op, key, text, resp.StatusCode)
}
