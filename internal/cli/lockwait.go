package cli

import (
	"context"
	"errors"
	"time"

	"github.com/tetherhq/tether/internal/state"
)

// lockPoll is how often a waiting command tries the lock again.
const lockPoll = 250 * time.Millisecond

// lockState takes the state's lock, waiting up to timeout while another
// process holds it, as Terraform's -lock-timeout does. Any error other
// than the lock being held is returned at once.
func lockState(ctx context.Context, store state.Store, info state.LockInfo, timeout time.Duration) (state.Unlocker, error) {
	deadline := time.Now().Add(timeout)
	for {
		unlock, err := store.Lock(ctx, info)
		var held *state.LockedError
		if err == nil || !errors.As(err, &held) || !time.Now().Before(deadline) {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(lockPoll):
		}
	}
}
