package state

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

const (
	// formatVersion is the schema version this build writes, kept in
	// PRAGMA user_version. Bump it with every incompatible schema change
	// and teach prepareSchema to migrate the previous one.
	formatVersion = 3

	// applicationID ("TETH") marks the file as a Tether state file in the
	// SQLite header, so some other SQLite database at the same path is
	// refused instead of being mistaken for an empty state.
	applicationID = 0x54455448

	// maxGroup caps how many Commit calls share one transaction, so one
	// transaction (and every caller waiting on it) stays bounded however
	// many goroutines pile up.
	maxGroup = 1024
)

// Durability: synchronous=NORMAL by default. In WAL mode a Commit that has
// returned is in the WAL and survives any crash of this process, which is
// the guarantee apply needs: a provider call that returned is recorded
// before anything depends on it. What NORMAL gives up is the last commits
// before a power loss or kernel crash; those who want that too set
// TETHER_STATE_SYNC=full, which fsyncs the WAL on every COMMIT (paid once
// per group of concurrent commits, about 0.3-0.6 ms here, which dominates a
// long chain of fast resources).
//
// busy_timeout bounds how long a write waits for another connection's write
// transaction. Writers hold SQLite's lock only for one short transaction, so
// waiting 10s means something is badly wrong.
//
// secure_delete zeroes what a write frees (an old row's bytes in its page,
// the pages an old value spilled onto), so that a value recorded in clear
// and sealed later leaves no copy in the file's free space (see
// Changes.Erase for the copies in the write-ahead log).
func connPragmas() string {
	sync := "NORMAL"
	if strings.EqualFold(os.Getenv("TETHER_STATE_SYNC"), "full") {
		sync = "FULL"
	}
	return "_pragma=busy_timeout(10000)&_pragma=synchronous(" + sync + ")&_pragma=secure_delete(1)"
}

// schema is the current format's; format 1 lacked the meta table, format
// 2 the checks table.
const schema = `
CREATE TABLE objects (
	address               TEXT    NOT NULL PRIMARY KEY,
	mode                  TEXT    NOT NULL,
	type                  TEXT    NOT NULL,
	provider              TEXT    NOT NULL,
	schema_version        INTEGER NOT NULL,
	value                 BLOB,
	private               BLOB,
	sensitive             BLOB,
	dependencies          TEXT, -- JSON array of addresses; NULL when none
	status                TEXT    NOT NULL,
	create_before_destroy INTEGER NOT NULL
) STRICT;
-- At most one row: the state's lineage and serial (format 2).
CREATE TABLE meta (
	one     INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	lineage TEXT    NOT NULL,
	serial  INTEGER NOT NULL
) STRICT;
CREATE TABLE outputs (
	name      TEXT    NOT NULL PRIMARY KEY,
	value     BLOB,
	sensitive INTEGER NOT NULL
) STRICT;
-- At most one row: the check results of the last apply (format 3).
CREATE TABLE checks (
	one     INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	results BLOB    NOT NULL
) STRICT;
-- At most one row: the CHECK makes a second INSERT a conflict, which is
-- what makes the lock exclusive across processes.
CREATE TABLE lock (
	one       INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	id        TEXT    NOT NULL,
	operation TEXT    NOT NULL,
	who       TEXT    NOT NULL,
	host      TEXT    NOT NULL,
	pid       INTEGER NOT NULL,
	created   TEXT    NOT NULL
) STRICT;
`

const (
	sqlPutObject = `INSERT INTO objects (address, mode, type, provider, schema_version, value, private, sensitive, dependencies, status, create_before_destroy)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (address) DO UPDATE SET
	mode = excluded.mode, type = excluded.type, provider = excluded.provider,
	schema_version = excluded.schema_version, value = excluded.value,
	private = excluded.private, sensitive = excluded.sensitive,
	dependencies = excluded.dependencies, status = excluded.status,
	create_before_destroy = excluded.create_before_destroy`
	sqlDeleteObject = `DELETE FROM objects WHERE address = ?`
	sqlPutOutput    = `INSERT INTO outputs (name, value, sensitive) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, sensitive = excluded.sensitive`
	sqlDeleteOutput = `DELETE FROM outputs WHERE name = ?`
	// sqlLoadObjects reads objects with ?1 to ?4 a mode, type, provider
	// and status (objectRow.common's): where a row has that one, it gives
	// NULL in its place and sets its bit in the second column, so that
	// the driver makes no string of it, nor an interface value of that.
	sqlLoadObjects = `SELECT address,
	(mode IS ?1) + 2*(type IS ?2) + 4*(provider IS ?3) + 8*(status IS ?4),
	iif(mode IS ?1, NULL, mode), iif(type IS ?2, NULL, type), iif(provider IS ?3, NULL, provider),
	schema_version, value, private, sensitive, dependencies,
	iif(status IS ?4, NULL, status), create_before_destroy FROM objects`
	sqlFirstObject = `SELECT mode, type, provider, status FROM objects LIMIT 1`
	sqlLoadOutputs = `SELECT name, value, sensitive FROM outputs`
	sqlCreateMeta  = `CREATE TABLE meta (
	one     INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	lineage TEXT    NOT NULL,
	serial  INTEGER NOT NULL
) STRICT`
	sqlCreateChecks = `CREATE TABLE checks (
	one     INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	results BLOB    NOT NULL
) STRICT`
	sqlPutChecks = `INSERT INTO checks (one, results) VALUES (1, ?)
ON CONFLICT (one) DO UPDATE SET results = excluded.results`
	sqlDeleteChecks = `DELETE FROM checks`
	sqlLoadChecks   = `SELECT results FROM checks`
	sqlInitMeta     = `INSERT INTO meta (one, lineage, serial) VALUES (1, ?, 1)`
	sqlBumpSerial   = `UPDATE meta SET serial = serial + 1`
	// sqlBumpSerialIfLocked changes nothing once the lock row is not the
	// one of ID ?1 (see bumpSerial).
	sqlBumpSerialIfLocked = `UPDATE meta SET serial = serial + 1 WHERE EXISTS (SELECT 1 FROM lock WHERE id = ?1)`
	sqlSetMeta            = `UPDATE meta SET lineage = ?, serial = ?`
	sqlLoadMeta           = `SELECT lineage, serial FROM meta`
)

// SQLite is the embedded Store: one SQLite file in WAL mode.
//
// All writes from Commit go through one goroutine holding one connection,
// which merges concurrent callers into one transaction (group commit):
// hundreds of resources finishing at once cost a handful of fsyncs, not
// hundreds, and callers never contend for SQLite's single write lock among
// themselves. Load reads from other pooled connections, which WAL lets run
// alongside the writer.
type SQLite struct {
	path string
	db   *sql.DB

	// w is the single writer, and guards closing: methods run between
	// w.Enter and w.Leave, so Close knows nothing still uses db.
	w     *Writer[[]any]
	wconn *sql.Conn
	stmts writerStmts
	// batch is the single writer's objects waiting to be written.
	batch putBatch
	boxes boxes

	// groups counts committed transactions; tests use it to see that
	// concurrent commits really were grouped.
	groups atomic.Int64
	// putStmts counts the statements that wrote objects; tests use it
	// to see that a group's objects were written in batches.
	putStmts atomic.Int64

	// lockID is the lock this store took, "" when it holds none; every
	// commit checks that the lock is still ours (see Store).
	lockID atomic.Pointer[string]

	// applyHook, a test hook, fails one request inside its group.
	applyHook func(*commitReq) error

	// vacuumed is set once an Erase commit has rebuilt the file (see
	// eraseOld); only the single writer touches it.
	vacuumed bool
}

var _ Store = (*SQLite)(nil)

// OpenSQLite opens the state file at path, creating it (and its directory)
// if it does not exist. A file written by a newer Tether, a damaged file and
// a file that is not a Tether state file are refused without being
// modified; see NewerFormatError and CorruptError.
func OpenSQLite(path string) (*SQLite, error) {
	return openSQLite(path, false)
}

// PeekSQLite opens the state file at path to read it, before a command's
// own open of it with OpenSQLite: the lookup of the platform it was
// applied with (internal/cli). A file of the current format with no
// write-ahead log beside it, which the lookup does not write (nor does
// its close), is not checked: the command's own open makes the quick
// check, once, whatever the file's age. Two opens that checked it would
// both check a file written in the last second (see checkedFiles): at
// 100,000 objects each check is about a tenth of a second. Any other file
// is opened as OpenSQLite opens it.
func PeekSQLite(path string) (*SQLite, error) {
	return openSQLite(path, true)
}

func openSQLite(path string, peek bool) (*SQLite, error) {
	// State holds secrets (provider-private data, sensitive values), so
	// what we create is private to the user. SQLite gives the -wal and
	// -shm files the main file's permissions.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("state file %s: creating its directory: %w", path, err)
	}
	if err := createIfMissing(path); err != nil {
		return nil, err
	}
	fi, err := checkFile(path)
	if err != nil {
		return nil, err
	}
	if walBeside(path) {
		fi = nil // its frames are part of what a check reads
	}
	return openFile(path, fi, peek)
}

// openFile opens a state file that exists and whose header checkFile
// accepted; fi is what checkFile found (nil for a file being created),
// which tells whether its quick check can be skipped (see checkedFiles),
// and peek whether it is opened only to be read (see PeekSQLite).
func openFile(path string, fi os.FileInfo, peek bool) (*SQLite, error) {
	dsn, err := dsnFor(path, connPragmas())
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fileError(path, "open", err)
	}
	ctx := context.Background()
	wconn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fileError(path, "open", err)
	}
	s := &SQLite{path: path, db: db, wconn: wconn}
	if err := s.prepareSchema(ctx, fi, peek); err != nil {
		wconn.Close()
		db.Close()
		return nil, err
	}
	if err := s.stmts.prepare(ctx, wconn); err != nil {
		s.stmts.close(wconn)
		wconn.Close()
		db.Close()
		return nil, fileError(path, "preparing statements", err)
	}
	s.w = NewWriter(maxGroup, fmt.Errorf("state file %s: %w", path, ErrClosed), s.commitGroup)
	return s, nil
}

// dsnFor builds a file: URI so that any byte in the path ('?', '#', '%')
// reaches SQLite as part of the name instead of starting a query string.
func dsnFor(path, pragmas string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("state file %s: %w", path, err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x must become /C:/x in a URI
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: pragmas + "&_txlock=immediate"}
	return u.String(), nil
}

var sqliteMagic = []byte("SQLite format 3\x00")

// createIfMissing creates a new state file whole: its content (newFile,
// perhaps built ahead) written under a temporary name beside it, synced
// once, then linked into place. A state file
// therefore either does not exist or is complete, and an empty or
// truncated one is damage, never "no state yet" (reading it as an empty
// state would plan everything again). When another process creates the
// file at the same moment, the first link wins and both use its file.
func createIfMissing(path string) error {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return nil // checkFile reports what else may be wrong
	}
	content, err := takeNewFile()
	if err != nil {
		return fmt.Errorf("state file %s: creating it: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("state file %s: creating it: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("state file %s: creating it: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("state file %s: creating it: %w", path, err)
	}
	return nil
}

// checkFile refuses a file that is not SQLite before SQLite itself sees
// it: SQLite would not overwrite such a file either, but checking the
// header ourselves gives the user a precise message and keeps every later
// step (WAL switch, schema creation) away from a file we have not
// recognised.
func checkFile(path string) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("state file %s is not a regular file", path)
	}
	if fi.Size() == 0 {
		// Tether never leaves an empty state file (see
		// createIfMissing): this one was truncated, or something else
		// made it.
		return nil, &CorruptError{Path: path, Reason: "is empty (0 bytes), so it was truncated or is not a Tether state file (Tether creates no empty state file; an empty state is a missing one)"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	defer f.Close()
	hdr := make([]byte, 100) // the SQLite header is 100 bytes
	if _, err := io.ReadFull(f, hdr); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, &CorruptError{Path: path, Reason: fmt.Sprintf("is truncated (%d bytes) or not a SQLite database", fi.Size())}
		}
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if !bytes.Equal(hdr[:len(sqliteMagic)], sqliteMagic) {
		return nil, &CorruptError{Path: path, Reason: "is not a SQLite database (it is corrupt, or some other file is at this path)"}
	}
	return fi, nil
}

// prepareSchema recognises the file, creates the schema in a new one and
// migrates an older format. Nothing is written until the file is known to
// be empty or ours at a version we read, and its pages pass SQLite's
// quick check: a damaged file is refused before the lock or anything else
// is written to it. A peek (see PeekSQLite) of a file of the current
// format with no log beside it (fi set) only reads: it leaves the check
// to the command's own open.
func (s *SQLite) prepareSchema(ctx context.Context, fi os.FileInfo, peek bool) error {
	c := s.wconn
	appID, version, nobjs, err := inspect(ctx, c)
	if err != nil {
		return fileError(s.path, "reading header", err)
	}
	fresh := appID == 0 && version == 0 && nobjs == 0
	if !fresh {
		if err := s.recognise(appID, version); err != nil {
			return err
		}
		if peek && fi != nil && version == formatVersion {
			return s.checkTables(ctx)
		}
		if !checkedFiles.unchanged(s.path, fi) {
			checkedFiles.checks.Add(1)
			start := time.Now()
			if err := s.quickCheck(ctx); err != nil {
				return err
			}
			checkedFiles.passed(s.path, fi, start)
		}
	}

	// journal_mode=WAL is persistent in the file; it cannot change inside a
	// transaction, and it is a no-op once set.
	var mode string
	if err := c.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return fileError(s.path, "enabling WAL", err)
	}
	// A file system without shared memory support leaves us in rollback
	// journal mode: slower and without concurrent reads, but just as
	// durable, so carry on rather than refuse.

	if !fresh && version == formatVersion {
		return s.checkTables(ctx)
	}
	// Another process may be creating or migrating the same file right
	// now; BEGIN IMMEDIATE serialises us, and we look again once we hold
	// the lock.
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fileError(s.path, "creating schema", err)
	}
	committed := false
	defer func() {
		if !committed {
			c.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	appID, version, nobjs, err = inspect(ctx, c)
	if err != nil {
		return fileError(s.path, "reading header", err)
	}
	var stmts []string
	switch {
	case appID == 0 && version == 0 && nobjs == 0:
		stmts = newSchema()
	case version == 1:
		// Format 1 had no lineage or serial: the state gets its lineage
		// now.
		stmts = []string{sqlCreateMeta, sqlCreateChecks}
	case version == 2:
		// Format 2 recorded no check results.
		stmts = []string{sqlCreateChecks}
	default:
		if err := s.recognise(appID, version); err != nil {
			return err
		}
	}
	if stmts != nil {
		if err := writeSchema(ctx, c, stmts, version < 2); err != nil {
			return fileError(s.path, "creating schema", err)
		}
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		return fileError(s.path, "creating schema", err)
	}
	committed = true
	return s.checkTables(ctx)
}

// newSchema is what makes an empty file a state file of the current
// format (with writeSchema, which also gives it its lineage).
func newSchema() []string {
	return []string{schema, fmt.Sprintf("PRAGMA application_id = %d", applicationID)}
}

// writeSchema runs stmts, sets the format version and, with lineage,
// writes a new lineage (and serial 1).
func writeSchema(ctx context.Context, c *sql.Conn, stmts []string, lineage bool) error {
	stmts = append(stmts, fmt.Sprintf("PRAGMA user_version = %d", formatVersion))
	for _, q := range stmts {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	if lineage {
		if _, err := c.ExecContext(ctx, sqlInitMeta, NewLineage()); err != nil {
			return err
		}
	}
	return nil
}

// quickCheck runs SQLite's check of every page's structure. It reads the
// whole file once (about 10 ms for 10,000 objects), which is what makes a
// damaged data page refused at open instead of at the first read, after
// the lock was written.
func (s *SQLite) quickCheck(ctx context.Context) error {
	rows, err := s.wconn.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fileError(s.path, "checking the file", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fileError(s.path, "checking the file", err)
		}
		if line != "ok" && len(problems) < 3 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fileError(s.path, "checking the file", err)
	}
	if len(problems) > 0 {
		return &CorruptError{Path: s.path, Reason: "is corrupt (" + strings.Join(problems, "; ") + ")"}
	}
	return nil
}

// checkedFiles remembers the state files whose pages passed the quick
// check in this process, as they were before they were opened, so that
// opening one again unchanged does not read it all again (the platform
// lookup peeks, see PeekSQLite, but a file the peek would write it checks,
// and the run's open then need not). A file is taken as
// unchanged when it is the same file, of the same size and modification
// time, and no write-ahead log is beside it (one that had frames would be
// part of what was checked). It is remembered only when it was last
// modified a second or more before the check started and not during it,
// so that a write since, which sets the modification time to the clock's
// time, cannot leave it looking the same.
var checkedFiles = checkedSet{files: map[string]os.FileInfo{}}

type checkedSet struct {
	mu    sync.Mutex
	files map[string]os.FileInfo
	// skipped counts the checks skipped, and checks the checks made, for
	// the tests.
	skipped, checks atomic.Int64
}

func (c *checkedSet) unchanged(path string, fi os.FileInfo) bool {
	if fi == nil {
		return false
	}
	c.mu.Lock()
	was, ok := c.files[path]
	c.mu.Unlock()
	if ok && sameStamp(was, fi) {
		c.skipped.Add(1)
		return true
	}
	return false
}

func (c *checkedSet) passed(path string, fi os.FileInfo, start time.Time) {
	if fi == nil || !fi.ModTime().Before(start.Add(-time.Second)) {
		return
	}
	now, err := os.Stat(path)
	if err != nil || !sameStamp(fi, now) {
		return
	}
	c.mu.Lock()
	c.files[path] = fi
	c.mu.Unlock()
}

func sameStamp(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

func walBeside(path string) bool {
	_, err := os.Lstat(path + "-wal")
	return !errors.Is(err, os.ErrNotExist)
}

func inspect(ctx context.Context, c *sql.Conn) (appID, version, nobjs int64, err error) {
	if err = c.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return
	}
	if err = c.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return
	}
	err = c.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&nobjs)
	return
}

// recognise accepts a file that is ours at a format this build reads.
func (s *SQLite) recognise(appID, version int64) error {
	if appID == 0 {
		return &CorruptError{Path: s.path, Reason: "is a SQLite database but not a Tether state file"}
	}
	if appID != applicationID {
		return &CorruptError{Path: s.path, Reason: fmt.Sprintf("is a SQLite database but not a Tether state file (application_id %#x)", appID)}
	}
	if version > formatVersion {
		return &NewerFormatError{Path: s.path, Format: int(version), Supported: formatVersion}
	}
	if version < 1 {
		return &CorruptError{Path: s.path, Reason: fmt.Sprintf("has an invalid format version %d", version)}
	}
	// Formats 1 and 2 are migrated by prepareSchema.
	return nil
}

// checkTables catches a file whose header says "ours" but whose tables
// were dropped or renamed by hand, before a Commit fails half way.
func (s *SQLite) checkTables(ctx context.Context) error {
	rows, err := s.wconn.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return fileError(s.path, "reading schema", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fileError(s.path, "reading schema", err)
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return fileError(s.path, "reading schema", err)
	}
	for _, t := range []string{"objects", "outputs", "lock", "meta", "checks"} {
		if !have[t] {
			return &CorruptError{Path: s.path, Reason: fmt.Sprintf("is missing its %q table", t)}
		}
	}
	return nil
}

// begin starts a call that uses the database, failing once the store is
// closed. The caller must call s.w.Leave when done.
func (s *SQLite) begin() error { return s.w.Enter() }

// Load returns every object and output, read in one transaction so the
// snapshot is consistent even while commits are running.
func (s *SQLite) Load(ctx context.Context) (*Snapshot, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()

	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fileError(s.path, "load", err)
	}
	defer tx.Rollback()

	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM objects").Scan(&n); err != nil {
		return nil, fileError(s.path, "load", err)
	}
	snap := &Snapshot{
		Objects: make(map[string]*Object, n),
		Outputs: map[string]*Output{},
	}
	if err := loadObjects(ctx, tx, snap.Objects, n); err != nil {
		return nil, fileError(s.path, "load", err)
	}
	if err := loadOutputs(ctx, tx, snap.Outputs); err != nil {
		return nil, fileError(s.path, "load", err)
	}
	err = tx.QueryRowContext(ctx, sqlLoadChecks).Scan(&snap.Checks)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fileError(s.path, "load", err)
	}
	var serial int64
	if err := tx.QueryRowContext(ctx, sqlLoadMeta).Scan(&snap.Lineage, &serial); err != nil {
		return nil, fileError(s.path, "load", err)
	}
	snap.Serial = uint64(serial)
	return snap, nil
}

func loadObjects(ctx context.Context, tx *sql.Tx, into map[string]*Object, n int) error {
	var r objectRow
	args, err := r.common(ctx, tx)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, sqlLoadObjects, args...)
	if err != nil {
		return err
	}
	defer rows.Close()

	// One allocation for all the Object structs instead of one each.
	objs := make([]Object, n)
	var arena arena
	i := 0
	for rows.Next() {
		var o *Object
		if i < len(objs) {
			o = &objs[i]
		} else {
			o = new(Object) // unreachable while count and rows share a transaction
		}
		i++
		if err := r.scan(rows, o); err != nil {
			return err
		}
		o.Value = arena.copy(o.Value)
		o.Private = arena.copy(o.Private)
		o.Sensitive = arena.copy(o.Sensitive)
		into[o.Address] = o
	}
	return rows.Err()
}

// objectRow reads rows of sqlLoadObjects' columns.
type objectRow struct {
	// intern shares one string per distinct type, provider, mode and
	// status: they repeat across thousands of rows.
	intern map[string]string
	// same is the row's bits of the columns that hold first's value.
	same                              int64
	first                             [4]string // mode, type, provider, status
	mode, typ, provider, status, deps sql.RawBytes
	value, private, sensitive         sql.RawBytes
	cbd                               int64
}

// common reads the first object's mode, type, provider and status, which
// most objects share, as sqlLoadObjects' arguments. Any values would
// read every row as it is; an empty state gives empty strings.
func (r *objectRow) common(ctx context.Context, tx *sql.Tx) ([]any, error) {
	var first [4][]byte
	err := tx.QueryRowContext(ctx, sqlFirstObject).Scan(&first[0], &first[1], &first[2], &first[3])
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	args := make([]any, len(first))
	for i, b := range first {
		r.first[i] = r.internStr(b)
		args[i] = r.first[i]
	}
	return args, nil
}

// column is the string of a row's column i (mode, type, provider,
// status): the first object's when its bit is set.
func (r *objectRow) column(i int, b sql.RawBytes) string {
	if r.same&(1<<i) != 0 {
		return r.first[i]
	}
	return r.internStr(b)
}

func (r *objectRow) internStr(b sql.RawBytes) string {
	if s, ok := r.intern[string(b)]; ok {
		return s
	}
	if r.intern == nil {
		r.intern = map[string]string{}
	}
	s := string(b)
	r.intern[s] = s
	return s
}

// scan reads the current row into o. o's Value, Private and Sensitive are
// the driver's bytes, valid until the next row: copy them to keep them.
func (r *objectRow) scan(rows *sql.Rows, o *Object) error {
	if err := rows.Scan(&o.Address, (*int64Col)(&r.same), &r.mode, &r.typ, &r.provider, (*int64Col)(&o.SchemaVersion),
		&r.value, &r.private, &r.sensitive, &r.deps, &r.status, (*int64Col)(&r.cbd)); err != nil {
		return err
	}
	o.Mode = Mode(r.column(0, r.mode))
	o.Type = r.column(1, r.typ)
	o.Provider = r.column(2, r.provider)
	o.Status = Status(r.column(3, r.status))
	o.CreateBeforeDestroy = r.cbd != 0
	o.Value, o.Private, o.Sensitive = r.value, r.private, r.sensitive
	o.Dependencies = nil
	if r.deps != nil {
		var err error
		if o.Dependencies, err = decodeStrings(r.deps); err != nil {
			return fmt.Errorf("object %s: decoding dependencies: %w", o.Address, err)
		}
	}
	return nil
}

// int64Col scans an INTEGER column as database/sql scans one into an
// int64, without the reflection it takes for any destination but a
// string, bytes or a Scanner: three columns of each of a large state's
// objects.
type int64Col int64

func (c *int64Col) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*c = int64Col(v)
		return nil
	case nil:
		return errors.New("converting NULL to int64 is unsupported")
	}
	// Anything else as database/sql converts it.
	var n sql.Null[int64]
	if err := n.Scan(src); err != nil {
		return err
	}
	*c = int64Col(n.V)
	return nil
}

// arena copies many small byte slices into a few large blocks: Load of a
// big state then makes a handful of allocations instead of one per value.
// Each copy is capped at its length, so appending to one never overwrites
// its neighbour.
type arena struct{ buf []byte }

const (
	arenaBlock = 1 << 20
	arenaMax   = 64 << 10 // bigger values get their own allocation
)

func (a *arena) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) > arenaMax {
		return bytes.Clone(b)
	}
	if len(b) > cap(a.buf)-len(a.buf) {
		a.buf = make([]byte, 0, arenaBlock)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

func loadOutputs(ctx context.Context, tx *sql.Tx, into map[string]*Output) error {
	rows, err := tx.QueryContext(ctx, sqlLoadOutputs)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		o := new(Output)
		var sens int64
		if err := rows.Scan(&o.Name, &o.Value, &sens); err != nil {
			return err
		}
		o.Sensitive = sens != 0
		into[o.Name] = o
	}
	return rows.Err()
}

// Close waits for pending commits to finish, stops the writer and closes
// the file. Closing the last connection checkpoints the WAL back into the
// main file. Close is idempotent.
func (s *SQLite) Close() error {
	if !s.w.Close() {
		return nil
	}

	s.stmts.close(s.wconn)
	// The last connection to close copies the write-ahead log into the
	// file, syncing both; SQLite also syncs the folder at the first sync
	// of each connection's log, since each may have created it. The
	// writer's connection has synced nothing yet (its commits do not
	// sync, see connPragmas), while the pooled one that took the lock has
	// synced its log and the folder already. So the log is copied through
	// that one first, without waiting for other processes' readers; the
	// last close then finds nothing left to copy or sync, and removes the
	// log as before. Should this copy fail, or be partial, the last close
	// copies what is left, as it always did.
	if s.db.Stats().Idle > 0 {
		s.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
	}
	err1 := s.wconn.Close()
	err2 := s.db.Close()
	if err := errors.Join(err1, err2); err != nil {
		return fileError(s.path, "close", err)
	}
	return nil
}
