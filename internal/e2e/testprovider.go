package e2e

import (
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/providertest"
)

// testProvider, the testprov command, puts the test provider "testing" (package
// internal/providertest/testprovider, built from this repository) into the
// scenario's filesystem mirror as registry.terraform.io/tetherhq/testing
// VERSION, 1.0.0 unless given. -schema 0 builds it with the schema version
// 0 of testing_upgraded, for scenarios of state upgrades.
func testProvider(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: testprov [-schema 0|1] [VERSION]"
	schema := 1
	if neg {
		ts.Fatalf("%s", usage)
	}
	if len(args) >= 2 && args[0] == "-schema" {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("%s: -schema %q is not a number", usage, args[1])
		}
		schema, args = n, args[2:]
	}
	if len(args) > 1 {
		ts.Fatalf("%s", usage)
	}
	p, err := providertest.BuildTestProvider(schema)
	ts.Check(err)
	if len(args) == 1 {
		p = p.As(args[0])
	}
	ts.Check(p.Unpack(filepath.Join(ts.Getenv("WORK"), ".mirror")))
}
