package gcsstate

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/api/googleapi"
)

// The retries cloud.google.com/go/storage made with WithMaxAttempts(5)
// and its default backoff (1 s, doubling, jittered): a GCS out of reach
// fails the operation after at most about 15 s rather than never.
var (
	attempts   = 5
	firstPause = time.Second
)

// retry calls call until it succeeds, fails with an error that is not
// transient, or has been called attempts times. Every call retried is
// safe to repeat: reads; writes of whole objects, which write the same
// bytes again; creates with ifGenerationMatch=0, whose repeat after a lost
// answer is a precondition failure, as with the storage client; deletes,
// whose repeat finds nothing, which is no error.
func retry(ctx context.Context, call func() error) error {
	pause := firstPause
	for try := 1; ; try++ {
		err := call()
		if err == nil || try == attempts || !transient(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(pause/2 + rand.N(pause/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		pause *= 2
	}
}

// transient is what cloud.google.com/go/storage retried: 408, 429 and 5xx
// answers, and connections refused, reset or cut short. The transport's
// errors have no types to tell them by, hence their text.
func transient(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code == http.StatusRequestTimeout || ge.Code == http.StatusTooManyRequests || ge.Code >= 500
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return de.IsTemporary
	}
	var ue *url.Error
	var oe *net.OpError
	if !errors.As(err, &ue) && !errors.As(err, &oe) {
		return false
	}
	for _, s := range []string{"connection refused", "connection reset", "broken pipe", "client connection lost", "server closed idle connection"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return errors.Is(err, io.EOF)
}
