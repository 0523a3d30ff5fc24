package e2e

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/gcsstate"
)

// startGCS starts a GCS emulator (fake-gcs-server, in this process, on
// 127.0.0.1, plain HTTP) with the bucket tfstate, and returns it with the
// environment that points Terraform's gcs backend and Tether's at it: the
// custom endpoint and an access token, which the emulator does not check.
// The public host is 127.0.0.1 so that the emulator serves the XML API's
// path-style reads (GET /BUCKET/OBJECT) there, which Terraform's storage
// client makes.
func startGCS(cleanup func(func())) (*fakestorage.Server, []string, error) {
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Host: "127.0.0.1", Scheme: "http", PublicHost: "127.0.0.1"})
	if err != nil {
		return nil, nil, err
	}
	cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "tfstate"})
	return srv, []string{"GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT=" + srv.URL() + "/storage/v1/", "GOOGLE_OAUTH_ACCESS_TOKEN=fake-token"}, nil
}

// gcsForTerraform is the emulator of TestTerraformRemoteBackends/gcs.
var gcsForTerraform *fakestorage.Server

func StartGCSForTerraform(t *testing.T) ([]string, func() [][]byte, func() state.Unlocker) {
	srv, env, err := startGCS(t.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	gcsForTerraform = srv
	stored := func() [][]byte {
		objs, _, err := srv.ListObjectsWithOptions("tfstate", fakestorage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]byte
		for _, o := range objs {
			if strings.Contains(o.Name, "terraform-adopted") {
				continue // Terraform's own state, as it kept it
			}
			obj, err := srv.GetObject("tfstate", o.Name)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, obj.Content)
		}
		return docs
	}
	lock := func() state.Unlocker {
		cfg, err := gcsstate.FromSettings(map[string]string{"bucket": "tfstate", "prefix": "adopt"}, EnvLookup(env))
		if err != nil {
			t.Fatal(err)
		}
		b, err := gcsstate.Connect(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		st, err := b.Open(context.Background(), gcsstate.DefaultWorkspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return LockStore(t, st)
	}
	return env, stored, lock
}

// GCSLockGeneration is the generation of the lock file at name: the ID
// Terraform's gcs backend gives the lock.
func GCSLockGeneration(t *testing.T, name string) string {
	o, err := gcsForTerraform.GetObject("tfstate", name)
	if err != nil {
		t.Fatalf("the lock file %s: %v", name, err)
	}
	return strconv.FormatInt(o.Generation, 10)
}

// gcsStarted holds the emulator of each running scenario.
var gcsStarted sync.Map

// gcsFake starts a GCS emulator with the bucket tfstate and points the
// environment at it: gcsfake. Then `gcsfake ls` lists the bucket's object
// names on stdout, `gcsfake cat NAME` writes an object to stdout, and
// `gcsfake put NAME FILE` writes one and sets GCS_GENERATION to its
// generation (the ID Terraform gives a lock file).
func gcsFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! gcsfake")
	}
	if len(args) == 0 {
		srv, env, err := startGCS(ts.Defer)
		ts.Check(err)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			ts.Setenv(k, v)
		}
		gcsStarted.Store(ts, srv)
		ts.Defer(func() { gcsStarted.Delete(ts) })
		return
	}
	v, ok := gcsStarted.Load(ts)
	if !ok {
		ts.Fatalf("gcsfake %s: run gcsfake first", args[0])
	}
	srv := v.(*fakestorage.Server)
	switch {
	case args[0] == "ls" && len(args) == 1:
		objs, _, err := srv.ListObjectsWithOptions("tfstate", fakestorage.ListOptions{})
		ts.Check(err)
		var names []string
		for _, o := range objs {
			names = append(names, o.Name)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintln(ts.Stdout(), n)
		}
	case args[0] == "cat" && len(args) == 2:
		o, err := srv.GetObject("tfstate", args[1])
		ts.Check(err)
		ts.Stdout().Write(o.Content)
	case args[0] == "put" && len(args) == 3:
		body, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "tfstate", Name: args[1], ContentType: "application/json"}, Content: body})
		o, err := srv.GetObject("tfstate", args[1])
		ts.Check(err)
		ts.Setenv("GCS_GENERATION", strconv.FormatInt(o.Generation, 10))
	default:
		ts.Fatalf("usage: gcsfake [ls | cat NAME | put NAME FILE]")
	}
}
