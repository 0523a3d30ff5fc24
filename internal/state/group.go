package state

// Gather starts a group of commit requests with first and adds whatever
// is already queued on reqs, up to max requests in all, without waiting:
// a store's single writer commits them in one transaction, so the group
// size follows the load (one caller alone pays one transaction, a burst
// of hundreds shares a few). group's storage is reused.
func Gather[T any](group []T, first T, reqs <-chan T, max int) []T {
	group = append(group[:0], first)
	for len(group) < max {
		select {
		case r, ok := <-reqs:
			if !ok {
				return group
			}
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}
