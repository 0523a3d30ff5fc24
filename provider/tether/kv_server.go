package tether

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/durable"
	"github.com/tetherhq/tether/runtime/kv"
)

const kvPrefix = "/v1/kv/"

// kvServer is the key-value store process. Each value is a file named by
// the SHA-256 of its key: any key makes a valid file name, and a write is
// a rename, so a crash never leaves half a value.
type kvServer struct {
	data   string
	logger *log.Logger
}

func (s *kvServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The key is taken from the escaped path by hand: a mux would clean
	// "a//b" or "../x" into another key, or redirect.
	raw := r.URL.EscapedPath()
	if !strings.HasPrefix(raw, kvPrefix) {
		http.Error(w, "tether kv: not found; the API is GET, PUT and DELETE on /v1/kv/{key}", http.StatusNotFound)
		return
	}
	key, err := url.PathUnescape(strings.TrimPrefix(raw, kvPrefix))
	if err != nil {
		http.Error(w, "tether kv: the key is not a valid escaped path: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := kv.CheckKey(key); err != nil {
		http.Error(w, "tether kv: "+err.Error(), http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256([]byte(key))
	path := filepath.Join(s.data, hex.EncodeToString(sum[:]))
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			http.Error(w, fmt.Sprintf("tether kv: no value for the key %q", key), http.StatusNotFound)
			return
		}
		if err != nil {
			s.fail(w, "read", key, err)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	case http.MethodPut:
		if r.ContentLength > kv.MaxValueSize {
			tooLarge(w, r.ContentLength)
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, kv.MaxValueSize))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooLarge(w, -1)
			return
		}
		if err != nil {
			http.Error(w, "tether kv: cannot read the value: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := durable.WriteFile(path, b, 0o600); err != nil {
			s.fail(w, "write", key, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case http.MethodDelete:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.fail(w, "delete", key, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT, DELETE")
		http.Error(w, "tether kv: the API is GET, PUT and DELETE on /v1/kv/{key}", http.StatusMethodNotAllowed)
	}
}

func tooLarge(w http.ResponseWriter, n int64) {
	size := fmt.Sprintf("more than %d KiB", kv.MaxValueSize>>10)
	if n >= 0 {
		size = fmt.Sprintf("%d bytes", n)
	}
	http.Error(w, fmt.Sprintf("tether kv: the value is %s; values may be at most %d bytes (%d KiB)", size, kv.MaxValueSize, kv.MaxValueSize>>10), http.StatusRequestEntityTooLarge)
}

func (s *kvServer) fail(w http.ResponseWriter, op, key string, err error) {
	s.logger.Printf("cannot %s %q: %v", op, key, err)
	http.Error(w, fmt.Sprintf("tether kv: cannot %s the key %q: %v", op, key, err), http.StatusInternalServerError)
}

// runKV is the key-value store process.
func runKV(args []string, stderr io.Writer) int {
	dir, port, logger, ok := serviceFlags("kv", "store", args, stderr)
	if !ok {
		return 2
	}
	data := filepath.Join(dir, dataDirName)
	if err := os.MkdirAll(data, 0o700); err != nil {
		logger.Printf("cannot create the data folder: %v", err)
		return 1
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		logger.Printf("cannot listen: %v", err)
		return 1
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: &kvServer{data: data, logger: logger}, ErrorLog: logger, ReadHeaderTimeout: 30 * time.Second}
	return serve(logger, dir, readyInfo{PID: os.Getpid(), URL: base}, []*http.Server{srv}, []net.Listener{ln}, "serving on "+base)
}
