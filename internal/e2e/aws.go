package e2e

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/providertest"
)

// awsMirrorCmd, the awsmirror command, links the real hashicorp/aws
// provider from this machine's mirror into the scenario's; a scenario
// says `[!aws] skip` first.
func awsMirrorCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: awsmirror")
	}
	from := providertest.AWSMirror()
	if from == "" {
		ts.Fatalf("no mirror holds hashicorp/aws 5.100.0")
	}
	to := filepath.Join(ts.Getenv("WORK"), ".mirror", "registry.terraform.io", "hashicorp")
	ts.Check(os.MkdirAll(to, 0o755))
	ts.Check(os.Symlink(filepath.Join(from, "registry.terraform.io", "hashicorp", "aws"), filepath.Join(to, "aws")))
}

// awsCondition is the [aws] condition: this machine has hashicorp/aws
// 5.100.0 in a filesystem mirror.
func awsCondition() bool { return providertest.AWSMirror() != "" }
