package pgstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/state"
)

const (
	// formatVersion is the schema version this build writes, kept in
	// tether_meta. Bump it with every incompatible change and teach
	// prepare to migrate the previous one.
	formatVersion = 2

	// DefaultSchema is the schema used when none is configured, as with
	// Terraform's pg backend.
	DefaultSchema = "terraform_remote_state"

	// DefaultWorkspace always exists and cannot be deleted.
	DefaultWorkspace = "default"

	// connectTimeout bounds a connection attempt when the connection
	// string sets none: an unreachable host must be an error, not a hang.
	connectTimeout = 15 * time.Second
)

// Config says where the state is: the settings of a backend "pg" block.
type Config struct {
	// ConnStr is a libpq connection string or URL. Whatever it leaves out
	// comes from the PG* environment variables, as with libpq.
	ConnStr string
	// Schema holds Tether's tables; DefaultSchema when empty.
	Schema string
	// SkipSchemaCreation expects the schema to exist already, for a user
	// who may create tables but not schemas.
	SkipSchemaCreation bool
	// ReadOnly creates nothing, for a reader of another configuration's
	// state (terraform_remote_state): a schema without Tether's tables
	// has no workspace and an empty ID; Terraform's states table is read
	// all the same.
	ReadOnly bool
}

func (c Config) schema() string {
	if c.Schema == "" {
		return DefaultSchema
	}
	return c.Schema
}

// NewerFormatError is returned for a schema written by a newer Tether.
// Nothing in it is read or written.
type NewerFormatError struct {
	Where     string
	Format    int
	Supported int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s was written by a newer Tether (format %d; this build reads up to %d); upgrade Tether",
		e.Where, e.Format, e.Supported)
}

// ErrNoWorkspace is wrapped by Open for a workspace that was never created.
var ErrNoWorkspace = errors.New("workspace does not exist")

// Backend is a connection to one schema, for what concerns all its
// workspaces: listing, creating and deleting them, and the state's id.
type Backend struct {
	cfg   Config
	conn  *pgx.Conn
	where string // the schema, host and database, never the password
	id    string
	names tables
}

// Connect connects to the server and prepares the schema: it is created
// with its tables on first use, and refused when a newer Tether wrote it.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	conn, where, err := connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, conn: conn, where: where, names: tableNames(cfg.schema())}
	if b.id, err = b.prepare(ctx); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return b, nil
}

// connect opens one connection. Its errors name the server and the
// schema; pgx leaves the password out of its own.
func connect(ctx context.Context, cfg Config) (*pgx.Conn, string, error) {
	pc, err := pgx.ParseConfig(cfg.ConnStr)
	if err != nil {
		return nil, fmt.Sprintf("PostgreSQL schema %q", cfg.schema()), fmt.Errorf("PostgreSQL backend: invalid conn_str: %w", err)
	}
	where := fmt.Sprintf("PostgreSQL schema %q in database %q on %s:%d", cfg.schema(), pc.Database, pc.Host, pc.Port)
	if pc.ConnectTimeout == 0 {
		pc.ConnectTimeout = connectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, where, fmt.Errorf("cannot connect to %s: %w", where, err)
	}
	return conn, where, nil
}

// ID is the state's id, which names its key (see internal/secrets). All
// workspaces of a schema share it.
func (b *Backend) ID() string { return b.id }

// Where describes the schema and server, without credentials.
func (b *Backend) Where() string { return b.where }

// Close closes the connection.
func (b *Backend) Close() error { return b.conn.Close(context.Background()) }

// tables are the schema-qualified, quoted names of Tether's tables.
type tables struct {
	schema, meta, workspaces, objects, outputs, locks, checks string
	// lockClass is the first key of every advisory lock of this schema.
	lockClass int32
}

func tableNames(schema string) tables {
	q := pgx.Identifier{schema}.Sanitize()
	return tables{
		schema:     q,
		meta:       q + ".tether_meta",
		workspaces: q + ".tether_workspaces",
		objects:    q + ".tether_objects",
		outputs:    q + ".tether_outputs",
		locks:      q + ".tether_locks",
		checks:     q + ".tether_checks",
		lockClass:  lockKey("tether schema " + schema),
	}
}

// lockKey hashes a name to a non-negative int32, so that the two-key
// advisory lock shows in pg_locks with the same numbers.
func lockKey(name string) int32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int32(h.Sum32() & 0x7fffffff)
}

// schemaTag keys the transaction-level lock that serialises creating the
// tables, so two first runs at once do not both create them.
const schemaTag = 0x54455448 // "TETH"

func (t tables) ddl() []string {
	return []string{
		`CREATE TABLE ` + t.meta + ` (key text PRIMARY KEY, value text NOT NULL)`,
		// lineage and serial are each workspace's, as each is a state.
		`CREATE TABLE ` + t.workspaces + ` (
	name    text        PRIMARY KEY,
	created timestamptz NOT NULL DEFAULT now(),
	lineage text        NOT NULL,
	serial  bigint      NOT NULL)`,
		`CREATE TABLE ` + t.objects + ` (
	workspace             text    NOT NULL REFERENCES ` + t.workspaces + ` (name),
	address               text    NOT NULL,
	mode                  text    NOT NULL,
	type                  text    NOT NULL,
	provider              text    NOT NULL,
	schema_version        bigint  NOT NULL,
	value                 bytea,
	private               bytea,
	sensitive             bytea,
	dependencies          text, -- JSON array of addresses; NULL when none
	status                text    NOT NULL,
	create_before_destroy boolean NOT NULL,
	PRIMARY KEY (workspace, address))`,
		`CREATE TABLE ` + t.outputs + ` (
	workspace text    NOT NULL REFERENCES ` + t.workspaces + ` (name),
	name      text    NOT NULL,
	value     bytea,
	sensitive boolean NOT NULL,
	PRIMARY KEY (workspace, name))`,
		// The advisory lock is the lock; this row only says who holds it,
		// for the runner that is refused.
		`CREATE TABLE ` + t.locks + ` (
	workspace   text        NOT NULL PRIMARY KEY,
	id          text        NOT NULL,
	operation   text        NOT NULL,
	who         text        NOT NULL,
	host        text        NOT NULL,
	pid         integer     NOT NULL,
	created     timestamptz NOT NULL,
	backend_pid integer     NOT NULL)`,
		t.checksDDL(),
	}
}

// checksDDL creates the table of each workspace's check results, which
// format 1 lacked.
func (t tables) checksDDL() string {
	return `CREATE TABLE ` + t.checks + ` (
	workspace text  NOT NULL PRIMARY KEY REFERENCES ` + t.workspaces + ` (name),
	results   bytea NOT NULL)`
}

// prepare reads the schema's format and id, creating the tables when
// there are none and migrating an older format. A schema it does not
// recognise is refused before anything is written.
func (b *Backend) prepare(ctx context.Context) (string, error) {
	id, version, err := b.inspect(ctx, b.conn)
	if err != nil || version == formatVersion || (version == 0 && b.cfg.ReadOnly) {
		return id, err
	}
	tx, err := b.conn.Begin(ctx)
	if err != nil {
		return "", b.fail("creating tables", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaTag)); err != nil {
		return "", b.fail("creating tables", err)
	}
	id, version, err = b.inspect(ctx, tx)
	switch {
	case err != nil || version == formatVersion:
		return id, err
	case version == 1:
		return id, b.migrate1(ctx, tx)
	}
	if !b.cfg.SkipSchemaCreation {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+b.names.schema); err != nil {
			return "", b.fail("creating the schema", err)
		}
	}
	for _, q := range b.names.ddl() {
		if _, err := tx.Exec(ctx, q); err != nil {
			return "", b.fail("creating tables", err)
		}
	}
	id = newID()
	if _, err := tx.Exec(ctx, `INSERT INTO `+b.names.meta+` (key, value) VALUES ('format_version', $1), ('state_id', $2)`,
		fmt.Sprint(formatVersion), id); err != nil {
		return "", b.fail("creating tables", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+b.names.workspaces+` (name, lineage, serial) VALUES ($1, $2, 1)`, DefaultWorkspace, state.NewLineage()); err != nil {
		return "", b.fail("creating tables", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", b.fail("creating tables", err)
	}
	return id, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// migrate1 brings a schema of format 1 to the current format, in the
// transaction that holds the schema lock: format 1 recorded no check
// results.
func (b *Backend) migrate1(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, b.names.checksDDL()); err != nil {
		return b.fail("migrating tables", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE `+b.names.meta+` SET value = $1 WHERE key = 'format_version'`, fmt.Sprint(formatVersion)); err != nil {
		return b.fail("migrating tables", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return b.fail("migrating tables", err)
	}
	return nil
}

// tablesOf is how many of Tether's tables each format has.
var tablesOf = map[int]int{1: 5, 2: 6}

// inspect reads the format version and id; version is 0 when the schema
// holds no Tether tables yet.
func (b *Backend) inspect(ctx context.Context, q querier) (id string, version int, err error) {
	var present int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('tether_meta', 'tether_workspaces', 'tether_objects', 'tether_outputs', 'tether_locks', 'tether_checks')`,
		b.cfg.schema()).Scan(&present); err != nil {
		return "", 0, b.fail("reading the schema", err)
	}
	if present == 0 {
		return "", 0, nil
	}
	var raw string
	err = q.QueryRow(ctx, `SELECT value FROM `+b.names.meta+` WHERE key = 'format_version'`).Scan(&raw)
	if err != nil {
		return "", 0, fmt.Errorf("%s holds some of Tether's tables but no readable format version (%v); Tether will not use or modify it", b.where, err)
	}
	var v int
	if _, err := fmt.Sscan(raw, &v); err != nil || v < 1 {
		return "", 0, fmt.Errorf("%s has an invalid format version %q; Tether will not use or modify it", b.where, raw)
	}
	if v > formatVersion {
		return "", 0, &NewerFormatError{Where: b.where, Format: v, Supported: formatVersion}
	}
	if present != tablesOf[v] {
		return "", 0, fmt.Errorf("%s is missing some of Tether's tables (found %d of %d); Tether will not use or modify it", b.where, present, tablesOf[v])
	}
	if err := q.QueryRow(ctx, `SELECT value FROM `+b.names.meta+` WHERE key = 'state_id'`).Scan(&id); err != nil {
		return "", 0, b.fail("reading the state id", err)
	}
	return id, v, nil
}

func (b *Backend) fail(doing string, err error) error {
	return fmt.Errorf("%s: %s: %w", b.where, doing, err)
}

// SetID gives the state another id, so that state moved here from another
// store keeps the key its sealed values and keyed hashes were made with.
// It refuses while any workspace holds an object or output.
func (b *Backend) SetID(ctx context.Context, id string) error {
	tx, err := b.conn.Begin(ctx)
	if err != nil {
		return b.fail("setting the state id", err)
	}
	defer tx.Rollback(context.Background())
	var n int
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+b.names.objects+`) + (SELECT count(*) FROM `+b.names.outputs+`)`).Scan(&n); err != nil {
		return b.fail("setting the state id", err)
	}
	if n > 0 {
		return fmt.Errorf("%s already holds state; it cannot take the id of another state", b.where)
	}
	if _, err := tx.Exec(ctx, `UPDATE `+b.names.meta+` SET value = $1 WHERE key = 'state_id'`, id); err != nil {
		return b.fail("setting the state id", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return b.fail("setting the state id", err)
	}
	b.id = id
	return nil
}

// newID returns 32 random hex digits, the form of a local state's id.
func newID() string {
	var raw [16]byte
	rand.Read(raw[:]) // never fails; see crypto/rand.Read
	return hex.EncodeToString(raw[:])
}
