package kv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// httpStore is the local store, tether_kv: GET, PUT and DELETE on
// /v1/kv/{key}.
type httpStore struct {
	base string
	http *http.Client
}

func openHTTP(endpoint string, u *url.URL) (*httpStore, error) {
	if u.Host == "" {
		return nil, fmt.Errorf("kv: endpoint %q is not an http URL such as http://127.0.0.1:8080", endpoint)
	}
	return &httpStore{
		base: strings.TrimSuffix(u.String(), "/"),
		// A store on the same machine answers at once; a bound keeps a
		// stopped store from hanging the function that calls it.
		http: &http.Client{Timeout: 30 * time.Second},
	}, nil
}

func (s *httpStore) get(ctx context.Context, key string) ([]byte, error) {
	resp, err := s.do(ctx, http.MethodGet, key, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return io.ReadAll(io.LimitReader(resp.Body, MaxValueSize+1))
	case http.StatusNotFound:
		return nil, ErrNotFound
	}
	return nil, statusError(resp)
}

func (s *httpStore) put(ctx context.Context, key string, value []byte) error {
	return s.change(ctx, http.MethodPut, key, value)
}

func (s *httpStore) delete(ctx context.Context, key string) error {
	return s.change(ctx, http.MethodDelete, key, nil)
}

// change sends a PUT or DELETE, which answers 2xx when done.
func (s *httpStore) change(ctx context.Context, method, key string, value []byte) error {
	resp, err := s.do(ctx, method, key, value)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return statusError(resp)
}

func (s *httpStore) do(ctx context.Context, method, key string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+"/v1/kv/"+url.PathEscape(key), r)
	if err != nil {
		return nil, err
	}
	return s.http.Do(req)
}

// statusError is the store's refusal: its message, or the status's text.
func statusError(resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	text := strings.TrimSpace(string(msg))
	if text == "" {
		text = http.StatusText(resp.StatusCode)
	}
	return fmt.Errorf("%s (status %d)", text, resp.StatusCode)
}
