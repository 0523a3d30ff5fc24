package state

// Filled returns info with its zero fields filled in as Lock fills them:
// a random ID, this host, this process, user@host and the current time.
// Stores other than SQLite use it to record the same details.
func (info LockInfo) Filled() LockInfo {
	fillLockInfo(&info)
	return info
}
