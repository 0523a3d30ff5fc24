package main

import (
	"fmt"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// gcsStore is the GCS emulator (fake-gcs-server) the -gcs trials keep
// state in, in this process on 127.0.0.1.
type gcsStore struct{ srv *fakestorage.Server }

func startGCSStore() (*gcsStore, error) {
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Host: "127.0.0.1", Scheme: "http", PublicHost: "127.0.0.1"})
	if err != nil {
		return nil, err
	}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "trials"})
	return &gcsStore{srv: srv}, nil
}

func (st *gcsStore) stop() { st.srv.Stop() }

// block is a trial's backend "gcs" block: its own prefix, the emulator's
// endpoint and an access token it does not check.
func (st *gcsStore) block(prefix string) string {
	return fmt.Sprintf(`terraform {
  backend "gcs" {
    bucket                  = "trials"
    prefix                  = %q
    storage_custom_endpoint = %q
    access_token            = "trials"
  }
}

`, prefix, st.srv.URL()+"/storage/v1/")
}
