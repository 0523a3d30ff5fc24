package plugin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tetherhq/tether/internal/durable"
)

// schemaCache keeps providers' schemas across runs, in a directory:
//
//	binaries/<hash of the binary's path>.json  the binary's size, times and SHA-256
//	schemas-1/<SHA-256>.tfplugin<N>.pb         GetProviderSchema's response, as sent
//	                                           (after a line: "optional" or "required")
//
// A schema is keyed by the SHA-256 of the binary, so that a binary
// replaced in place gets its own; the record under binaries/ saves hashing
// a binary again (the AWS provider is 700 MB) until its size or times
// change. The response is kept in protobuf, as the provider sent it, and
// decoded by the same code as a fresh one, so the two cannot differ.
//
// Nothing here fails a start: a cache that cannot be read or written is a
// cache miss.
type schemaCache struct {
	dir string

	// keyed is closed once sum is set: the binary's SHA-256 in hex, or ""
	// when it could not be had. It is computed while the plugin starts.
	keyed chan struct{}
	sum   string
	// read is closed once ready is set: the kept schema loaded, when there
	// is one the provider allows to be used, also while the plugin starts.
	read  chan struct{}
	ready *cachedSchema
}

// cachedSchema is a kept schema, loaded, for the protocol version it was
// kept under.
type cachedSchema struct {
	version int
	loaded  *loadedSchema
}

// schemaCacheFormat names the directory of schemas, so that a change in
// how they are kept starts a new one.
const schemaCacheFormat = "schemas-1"

// openSchemaCache starts hashing the binary and, if that finds a kept
// schema, loading it.
func openSchemaCache(dir, binary string) *schemaCache {
	sc := &schemaCache{dir: dir, keyed: make(chan struct{}), read: make(chan struct{})}
	go func() {
		sc.sum = binaryHash(dir, binary)
		close(sc.keyed)
		sc.ready = sc.prefetch()
		close(sc.read)
	}()
	return sc
}

// prefetch loads the kept schema of the binary, if there is exactly one
// (a binary always negotiates the same version, so there is) and it may
// be used without asking the provider.
func (sc *schemaCache) prefetch() *cachedSchema {
	if sc.sum == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(sc.dir, schemaCacheFormat, sc.sum+".tfplugin*.pb"))
	if len(files) != 1 {
		return nil
	}
	var version int
	if _, err := fmt.Sscanf(filepath.Base(files[0]), sc.sum+".tfplugin%d.pb", &version); err != nil {
		return nil
	}
	optional, wire, err := readCachedSchema(files[0])
	if err != nil || !optional {
		return nil
	}
	var decode func([]byte) (*wireSchema, error)
	switch version {
	case 5:
		decode = rpc5{}.SchemaFromWire
	case 6:
		decode = rpc6{}.SchemaFromWire
	default:
		return nil
	}
	ws, err := decode(wire)
	if err != nil {
		return nil
	}
	return &cachedSchema{version: version, loaded: loadSchema(cachedTypes(ws, files[0]))}
}

// KeepSchema puts the schema of the provider plugin at path into the
// schema cache dir (as StartOptions.SchemaCacheDir), starting the plugin
// only when the cache has no schema for it yet, and stopping it at once.
// `tether init` calls it, so that the first plan after it reads no schema
// from the provider: for the AWS provider, a second of its CPU and a
// hundred megabytes, on one core before any other call can be made.
//
// The cache is filled whether or not the provider declares
// GetProviderSchemaOptional: a provider that does not is asked again at
// every start anyway, and the kept copy records that, so that the next
// KeepSchema need not start it to find out.
func KeepSchema(ctx context.Context, path, dir string) error {
	sum := binaryHash(dir, path)
	if sum == "" {
		return fmt.Errorf("provider plugin %s: cannot be read to key its schema", path)
	}
	if kept, _ := filepath.Glob(filepath.Join(dir, schemaCacheFormat, sum+".tfplugin*.pb")); len(kept) > 0 {
		return nil
	}
	c, err := StartWith(ctx, path, StartOptions{SchemaCacheDir: dir})
	if err != nil {
		return err
	}
	return c.Close()
}

// file is where the schema of the binary, spoken in protocol version,
// lives; "" if the binary's hash is unknown.
func (sc *schemaCache) file(version int) string {
	<-sc.keyed
	if sc.sum == "" {
		return ""
	}
	return filepath.Join(sc.dir, schemaCacheFormat, fmt.Sprintf("%s.tfplugin%d.pb", sc.sum, version))
}

// binaryRecord is what binaries/ holds for one path.
type binaryRecord struct {
	Path   string `json:"path"`
	Stat   string `json:"stat"`
	SHA256 string `json:"sha256"`
}

// binaryHash returns the SHA-256 of the file at path, from the record in
// dir while the file's stat key (statKey) is the one recorded, else by
// reading the file, and then records it.
func binaryHash(dir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	info, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	pathSum := sha256.Sum256([]byte(abs))
	recordFile := filepath.Join(dir, "binaries", hex.EncodeToString(pathSum[:16])+".json")
	if b, err := os.ReadFile(recordFile); err == nil {
		var rec binaryRecord
		if json.Unmarshal(b, &rec) == nil && rec.Path == abs && rec.Stat == statKey(info) && len(rec.SHA256) == 64 {
			return rec.SHA256
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	sum := hex.EncodeToString(h.Sum(nil))
	// A binary that changed while it was read gets no record: the hash may
	// be of neither version.
	if after, err := f.Stat(); err == nil && statKey(after) == statKey(info) {
		if b, err := json.Marshal(binaryRecord{Path: abs, Stat: statKey(info), SHA256: sum}); err == nil {
			if os.MkdirAll(filepath.Dir(recordFile), 0o755) == nil {
				durable.WriteFile(recordFile, b, 0o644)
			}
		}
	}
	return sum
}

// statKey is what must stay the same for a file's recorded hash to hold:
// its size and modification time, and where the system has them its
// inode and change time, which no copy that keeps the modification time
// (cp -p, tar) keeps.
func statKey(info os.FileInfo) string {
	return fmt.Sprintf("%d %d%s", info.Size(), info.ModTime().UnixNano(), statKeyExtra(info))
}

// readSchema reads the provider's schema: from the cache when the copy
// there declares GetProviderSchemaOptional, which is Terraform's rule (the
// binary is the same, so its capabilities are); else from the provider,
// and then into the cache if the copy is missing.
//
// It does not ask GetMetadata for the capability, though the call exists
// for that: terraform-plugin-mux (as in the AWS provider 5.100) fills its
// routing table on GetMetadata without marking it complete, and then
// takes every type for a duplicate on the next call that needs it.
func (c *Client) readSchema(ctx context.Context, cache *schemaCache) (*loadedSchema, error) {
	if cache == nil {
		return c.readSchemaFromProvider(ctx, nil)
	}
	select {
	case <-cache.read:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if r := cache.ready; r != nil && r.version == c.protocolVersion {
		c.schemaFromCache = true
		return r.loaded, nil
	}
	file := cache.file(c.protocolVersion)
	if file == "" {
		return c.readSchemaFromProvider(ctx, nil)
	}
	// Not loaded already: missing, damaged, not to be used, or one of
	// several.
	optional, wire, err := readCachedSchema(file)
	switch {
	case err != nil:
	case !optional:
		// A copy already kept is the same: the binary is.
		return c.readSchemaFromProvider(ctx, nil)
	default:
		if ws, err := c.rpc.SchemaFromWire(wire); err == nil {
			c.schemaFromCache = true
			return loadSchema(cachedTypes(ws, file)), nil
		}
	}
	wire = nil
	ls, err := c.readSchemaFromProvider(ctx, func(b []byte) { wire = b })
	if err != nil {
		return nil, err
	}
	if wire != nil && !ls.diags.HasErrors() {
		writeCachedSchema(file, ls.optional, wire)
	}
	return ls, nil
}

// readSchemaFromProvider asks the provider for its schema, handing keep,
// unless nil, the response as sent.
func (c *Client) readSchemaFromProvider(ctx context.Context, keep func([]byte)) (*loadedSchema, error) {
	wire, err := c.rpc.GetProviderSchema(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := c.rpc.SchemaFromWire(wire)
	if err != nil {
		return nil, fmt.Errorf("the provider's schema cannot be decoded: %w", err)
	}
	if keep != nil {
		keep(wire)
	}
	return loadSchema(ws), nil
}

// cachedTypes makes the errors of decoding the types and functions of
// ws, a schema read from file, say where it came from: the schema of a
// type or the signature of a function is decoded only when first used, so
// a cached copy damaged inside one (which the response's outline, checked
// when it is read, does not show) is found only then.
func cachedTypes(ws *wireSchema, file string) *wireSchema {
	ws.typeSchema = fromCache(ws.typeSchema, file)
	ws.function = fromCache(ws.function, file)
	return ws
}

func fromCache[T any](decode func([]byte) (T, error), file string) func([]byte) (T, error) {
	return func(b []byte) (T, error) {
		v, err := decode(b)
		if err != nil {
			return v, fmt.Errorf("%w (in the schema kept in %s; remove it to read the schema from the provider again)", err, file)
		}
		return v, nil
	}
}

// A cached schema is a header line saying whether the provider declared
// GetProviderSchemaOptional, so that a provider that did not is not
// decoded for nothing, then the response as the provider sent it.
const (
	cachedOptional = "optional\n"
	cachedRequired = "required\n"
)

func readCachedSchema(file string) (optional bool, wire []byte, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return false, nil, err
	}
	if wire, ok := bytes.CutPrefix(b, []byte(cachedOptional)); ok {
		return true, wire, nil
	}
	if wire, ok := bytes.CutPrefix(b, []byte(cachedRequired)); ok {
		return false, wire, nil
	}
	return false, nil, fmt.Errorf("%s: not a cached schema", file)
}

func writeCachedSchema(file string, optional bool, wire []byte) error {
	header := cachedRequired
	if optional {
		header = cachedOptional
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return durable.WriteFile(file, append([]byte(header), wire...), 0o644)
}
