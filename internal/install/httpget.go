package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
)

// maxMetadata bounds a JSON or SHA256SUMS answer, so that a broken server
// cannot fill memory.
const maxMetadata = 8 << 20

// statusError is an HTTP answer other than 200.
type statusError struct {
	url    string
	status string
	code   int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s answered %s", e.url, e.status) }

// get fetches url with an optional bearer token and returns at most
// maxMetadata bytes of its body. A status other than 200 is a *statusError.
func get(ctx context.Context, client *http.Client, url, token string) ([]byte, error) {
	resp, err := do(ctx, client, url, token)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if len(body) > maxMetadata {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d bytes", url, maxMetadata)
	}
	return body, nil
}

func do(ctx context.Context, client *http.Client, url, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, &statusError{url: url, status: resp.Status, code: resp.StatusCode}
	}
	return resp, nil
}

// getJSON fetches url and decodes its JSON body into out; an answer that is
// not JSON of that shape is an error quoting the URL.
func getJSON(ctx context.Context, client *http.Client, url, token string, out any) error {
	body, err := get(ctx, client, url, token)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s answered something that is not the expected JSON: %v", url, err)
	}
	return nil
}

// download saves url to the file dest and returns the hex SHA-256 of what
// it wrote.
func download(ctx context.Context, client *http.Client, url, dest string) (string, error) {
	resp, err := do(ctx, client, url, "")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	f, err := os.Create(dest)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
