package state

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// newFile builds what a new state file holds: the schema, the format
// version and a new lineage, in WAL mode. SQLite builds it in memory (its
// memdb file system: the name, without a leading slash, is this
// connection's alone) and hands over the bytes of the database file, which
// createIfMissing writes under a temporary name, syncs once and links into
// place, so nothing else ever sees a part of it. A database without a log
// is in WAL mode when its header's read and write versions (bytes 18 and
// 19) are 2: that is all PRAGMA journal_mode=WAL changes in the file, and
// the one thing a database in memory cannot be switched to.
func newFile() ([]byte, error) {
	db, err := sql.Open("sqlite", "file:tether-new-state?vfs=memdb")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return nil, err
	}
	if err := writeSchema(ctx, c, newSchema(), true); err != nil {
		return nil, err
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, err
	}
	var content []byte
	err = c.Raw(func(dc any) error {
		s, ok := dc.(interface{ Serialize() ([]byte, error) })
		if !ok {
			return errors.New("the SQLite driver cannot hand over a database's bytes")
		}
		var err error
		content, err = s.Serialize()
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(content) < 100 || string(content[:len(sqliteMagic)]) != string(sqliteMagic) {
		return nil, errors.New("SQLite handed over something that is not a database file")
	}
	content[18], content[19] = 2, 2 // WAL
	return content, nil
}

// ahead is a new state file's content being built before it is needed
// (BuildNewFileAhead), for the next file this process creates.
var ahead struct {
	sync.Mutex
	next chan builtFile
}

type builtFile struct {
	content []byte
	err     error
}

// BuildNewFileAhead starts building a new state file's content on a
// goroutine of its own, for the next state file this process creates
// (OpenSQLite of a path where none exists), which then only writes, syncs
// and links it. A command that is about to create one calls it before its
// other work, so that the building (about a millisecond, more for the
// first use of SQLite in a process) runs beside that work. Content that is
// never used costs only its building. It does nothing while a content
// built ahead is waiting, and each content is used once: every file gets
// a lineage of its own.
func BuildNewFileAhead() {
	ahead.Lock()
	defer ahead.Unlock()
	if ahead.next != nil {
		return
	}
	c := make(chan builtFile, 1)
	ahead.next = c
	go func() {
		content, err := newFile()
		c <- builtFile{content, err}
	}()
}

// takeNewFile returns the content built ahead, if any and it was built,
// or builds one.
func takeNewFile() ([]byte, error) {
	ahead.Lock()
	c := ahead.next
	ahead.next = nil
	ahead.Unlock()
	if c != nil {
		if b := <-c; b.err == nil {
			return b.content, nil
		}
	}
	return newFile()
}
