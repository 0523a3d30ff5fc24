package aws

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestAWSBlockRendering is TestDifferentialBlockRendering for the real
// hashicorp/aws 5.100.0 provider, planned offline over the objects
// testdata/blockrender_aws/recorded.tfstate records (tether init takes
// them over): the legacy SDK's set blocks (a DynamoDB table's attribute
// and global_secondary_index) matched by value, a list block that
// changes and one unchanged and hidden, a replacement, attributes the
// provider lets people write as blocks (a security group's ingress),
// which Terraform shows as attributes, computed blocks known only after
// apply, and empty strings in blocks shown as null. The plan, show of
// the saved plan, and state show of the recorded objects must be
// terraform's bytes.
func TestAWSBlockRendering(t *testing.T) {
	t.Parallel()
	tf, tt := awsMirrorSides(t, "blockrender_aws")
	// The recorded objects come in after init, which would not take
	// them over without -force-copy.
	recorded, err := os.ReadFile(filepath.Join("testdata", "blockrender_aws", "recorded.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []e2e.Side{tf, tt} {
		if err := os.WriteFile(filepath.Join(s.Dir, "terraform.tfstate"), recorded, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e2e.MustSucceed(t, "tether init -force-copy", tt.Run("init", "-force-copy"))
	for _, a := range []string{"aws_dynamodb_table.d", "aws_dynamodb_table.r"} {
		tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			if s.Name == "terraform" {
				return s.Run("state", "show", "-no-color", a)
			}
			return s.Run("state", "show", a)
		})
		e2e.MustSucceed(t, "state show "+a, tfRes, ttRes)
		e2e.SameText(t, "state show "+a, tfRes.Stdout, ttRes.Stdout)
	}
	tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		args := []string{"plan", "-refresh=false", "-out", "p.tfplan"}
		if s.Name == "terraform" {
			args = []string{"plan", "-input=false", "-no-color", "-refresh=false", "-out", "p.tfplan"}
		}
		if r := s.Run(args...); r.Code != 0 || r.Err != nil {
			return r
		}
		if s.Name == "terraform" {
			return s.Run("show", "-no-color", "p.tfplan")
		}
		return s.Run("show", "p.tfplan")
	})
	e2e.MustSucceed(t, "plan -out, show", tfRes, ttRes)
	e2e.SameText(t, "show p.tfplan", e2e.PlannedChanges(tfRes.Stdout), e2e.PlannedChanges(ttRes.Stdout))
}
