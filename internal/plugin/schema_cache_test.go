package plugin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/provider/tether"
)

// The cache is used only for a provider that declares its schema call
// optional (the protocol 5 test plugin), and written for both.
func TestSchemaCache(t *testing.T) {
	want, diags := tether.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		name     string
		bin      *string
		optional bool
	}{
		{"protocol5 optional", &tether5Bin, true},
		{"protocol6 required", &tether6Bin, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			start := func() *Client {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				c, err := StartWith(ctx, *tc.bin, StartOptions{SchemaCacheDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				got, diags := c.GetSchema()
				noErrors(t, "schema", diags)
				compareSchemas(t, "resource", got.Resources, want.Resources)
				compareSchemas(t, "data source", got.DataSources, want.DataSources)
				compareBlock(t, "provider", got.Provider, want.Provider)
				return c
			}

			if c := start(); c.schemaFromCache {
				t.Fatal("first start used a cache")
			}
			files, _ := filepath.Glob(filepath.Join(dir, schemaCacheFormat, "*.pb"))
			if len(files) != 1 {
				t.Fatalf("cached schemas %v, want one", files)
			}
			if c := start(); c.schemaFromCache != tc.optional {
				t.Errorf("second start used the cache: %v, want %v", c.schemaFromCache, tc.optional)
			}

			// A damaged cache is a miss, and is written anew.
			if err := os.WriteFile(files[0], []byte("not protobuf \xff\xff"), 0o644); err != nil {
				t.Fatal(err)
			}
			if c := start(); c.schemaFromCache {
				t.Error("a damaged cache was used")
			}
			if c := start(); c.schemaFromCache != tc.optional {
				t.Errorf("start after repair used the cache: %v, want %v", c.schemaFromCache, tc.optional)
			}
		})
	}
}

// A binary is hashed again only when its size or times change.
func TestBinaryHashRecord(t *testing.T) {
	t.Parallel()
	dir, bin := t.TempDir(), filepath.Join(t.TempDir(), "provider")
	if err := os.WriteFile(bin, []byte("one"), 0o755); err != nil {
		t.Fatal(err)
	}
	const sumOfOne = "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"
	if got := binaryHash(dir, bin); got != sumOfOne {
		t.Fatalf("hash %s, want %s", got, sumOfOne)
	}
	// Doctor the record: while the file's stat is unchanged, the record
	// is believed, which shows the file is not read again.
	records, _ := filepath.Glob(filepath.Join(dir, "binaries", "*.json"))
	if len(records) != 1 {
		t.Fatalf("records %v", records)
	}
	b, err := os.ReadFile(records[0])
	if err != nil {
		t.Fatal(err)
	}
	const doctored = "0000000000000000000000000000000000000000000000000000000000000000"
	if err := os.WriteFile(records[0], []byte(strings.Replace(string(b), sumOfOne, doctored, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := binaryHash(dir, bin); got != doctored {
		t.Errorf("hash %s, want the recorded %s", got, doctored)
	}
	// Same size, same modification time, other content: the change time
	// gives it away.
	info, _ := os.Stat(bin)
	if statKeyExtra(info) == "" {
		return // no change time here
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(bin, []byte("two"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(bin, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	const sumOfTwo = "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3"
	if got := binaryHash(dir, bin); got != sumOfTwo {
		t.Errorf("hash after rewrite %s, want %s", got, sumOfTwo)
	}
}
