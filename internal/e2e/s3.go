package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/internal/httpstatefake"
)

// S3Emulators are the S3 (gofakes3, which serves conditional writes) and
// DynamoDB (internal/dynamofake) a scenario's s3 backend uses, both in
// this process on 127.0.0.1, with the bucket tfstate and the lock table
// locks.
type S3Emulators struct {
	Mem *s3mem.Backend
}

func StartS3Emulators(cleanup func(func())) (*S3Emulators, []string, error) {
	mem := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	cleanup(srv.Close)
	if err := mem.CreateBucket("tfstate"); err != nil {
		return nil, nil, err
	}
	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-west-1"})
	if err != nil {
		return nil, nil, err
	}
	cleanup(func() { ddb.Close() })
	if err := ddb.CreateTable("locks", "LockID", "S"); err != nil {
		return nil, nil, err
	}
	// dynamofake's environment names its endpoint and the only keys it
	// accepts; gofakes3 accepts any.
	env := append(ddb.Env(), "AWS_ENDPOINT_URL_S3="+srv.URL)
	return &S3Emulators{Mem: mem}, env, nil
}

// S3Fake starts the emulators and points the AWS environment at them:
// s3fake. Then `s3fake ls` lists the bucket's keys on stdout, `s3fake cat
// KEY` writes an object to stdout, and `s3fake put KEY FILE` writes one.
func s3Fake(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! s3fake")
	}
	if len(args) == 0 {
		e, env, err := StartS3Emulators(ts.Defer)
		ts.Check(err)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			ts.Setenv(k, v)
		}
		s3Started.Store(ts, e)
		ts.Defer(func() { s3Started.Delete(ts) })
		return
	}
	v, ok := s3Started.Load(ts)
	if !ok {
		ts.Fatalf("s3fake %s: run s3fake first", args[0])
	}
	emus := v.(*S3Emulators)
	switch {
	case args[0] == "ls" && len(args) == 1:
		list, err := emus.Mem.ListBucket("tfstate", nil, gofakes3.ListBucketPage{})
		ts.Check(err)
		var keys []string
		for _, o := range list.Contents {
			keys = append(keys, o.Key)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintln(ts.Stdout(), k)
		}
	case args[0] == "cat" && len(args) == 2:
		o, err := emus.Mem.GetObject("tfstate", args[1], nil)
		ts.Check(err)
		defer o.Contents.Close()
		_, err = io.Copy(ts.Stdout(), o.Contents)
		ts.Check(err)
	case args[0] == "put" && len(args) == 3:
		body, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		_, err = emus.Mem.PutObject("tfstate", args[1], map[string]string{}, bytes.NewReader(body), int64(len(body)), nil)
		ts.Check(err)
	default:
		ts.Fatalf("usage: s3fake [ls | cat KEY | put KEY FILE]")
	}
}

// s3Started holds the emulators of each running scenario.
var s3Started sync.Map

func Gofakes3Page() gofakes3.ListBucketPage { return gofakes3.ListBucketPage{} }

// httpFake starts a state server speaking Terraform's http backend
// protocol (internal/httpstatefake) and sets TF_HTTP_ADDRESS,
// TF_HTTP_LOCK_ADDRESS, TF_HTTP_UNLOCK_ADDRESS, TF_HTTP_USERNAME and
// TF_HTTP_PASSWORD for it: httpfake. `httpfake lock FILE` takes the
// default workspace's lock with the record in FILE, as terraform would.
func httpFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! httpfake")
	}
	if len(args) == 0 {
		srv := httpstatefake.Start("tf", "s3cr3t-pw")
		ts.Defer(srv.Close)
		for k, v := range map[string]string{"TF_HTTP_ADDRESS": srv.URL + "/state", "TF_HTTP_LOCK_ADDRESS": srv.URL + "/lock",
			"TF_HTTP_UNLOCK_ADDRESS": srv.URL + "/lock", "TF_HTTP_USERNAME": "tf", "TF_HTTP_PASSWORD": "s3cr3t-pw", "TF_HTTP_RETRY_MAX": "0"} {
			ts.Setenv(k, v)
		}
		return
	}
	if args[0] != "lock" || len(args) != 2 {
		ts.Fatalf("usage: httpfake [lock FILE]")
	}
	body, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	req, err := http.NewRequest("LOCK", ts.Getenv("TF_HTTP_LOCK_ADDRESS"), bytes.NewReader(body))
	ts.Check(err)
	req.SetBasicAuth(ts.Getenv("TF_HTTP_USERNAME"), ts.Getenv("TF_HTTP_PASSWORD"))
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("httpfake lock: %s", resp.Status)
	}
}
