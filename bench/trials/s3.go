package main

import (
	"fmt"
	"net/http/httptest"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tetherhq/tether/internal/dynamofake"
)

// s3Store is the S3 (gofakes3) and DynamoDB (internal/dynamofake) the -s3
// trials keep state in, both in this process on 127.0.0.1, so that they
// outlive every tether killed.
type s3Store struct {
	s3  *httptest.Server
	ddb *dynamofake.Server
}

func startS3Store() (*s3Store, error) {
	mem := s3mem.New()
	if err := mem.CreateBucket("trials"); err != nil {
		return nil, err
	}
	st := &s3Store{s3: httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())}
	var err error
	if st.ddb, err = dynamofake.Start(dynamofake.Options{Region: "eu-west-1"}); err != nil {
		st.s3.Close()
		return nil, err
	}
	if err := st.ddb.CreateTable("locks", "LockID", "S"); err != nil {
		st.stop()
		return nil, err
	}
	return st, nil
}

func (st *s3Store) stop() {
	st.s3.Close()
	st.ddb.Close()
}

// block is a trial's backend "s3" block: its own key, Terraform's lock
// file and DynamoDB lock.
func (st *s3Store) block(key string) string {
	o := st.ddb.Options()
	return fmt.Sprintf(`terraform {
  backend "s3" {
    bucket         = "trials"
    key            = %q
    region         = "eu-west-1"
    dynamodb_table = "locks"
    use_lockfile   = true
    use_path_style = true
    endpoints      = { s3 = %q, dynamodb = %q }
    access_key     = %q
    secret_key     = %q

    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
  }
}

`, key+"/terraform.tfstate", st.s3.URL, st.ddb.URL, o.AccessKeyID, o.SecretAccessKey)
}
