package aws

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Name is the platform's name, as --platform takes it.
const Name = "aws"

// PlatformTag is the tag the platform puts on every object it deploys
// that takes tags, with the value Name. State thus records which platform
// a stack was applied with, in every backend and in the Terraform state
// it is pulled as, and so do the objects in the account.
const PlatformTag = "tether:platform"

// Deployed reports whether the state object of type typ, with value in
// Terraform's JSON state encoding, is one the platform deployed: an AWS
// object tagged with PlatformTag.
func Deployed(typ string, value []byte) bool {
	if !strings.HasPrefix(typ, "aws_") || !bytes.Contains(value, []byte(PlatformTag)) {
		return false
	}
	var v struct {
		Tags map[string]string `json:"tags"`
	}
	return json.Unmarshal(value, &v) == nil && v.Tags[PlatformTag] == Name
}
