// Package backends holds the tether command's tests of state backends
// shared with Terraform: taking over a Terraform state, local and pg
// (TestTerraformStateBothWays, TestTerraformWorkspacesAdopted) and remote
// (TestTerraformRemoteBackends, TestTerraformS3AssumeRole), and two
// runners on one PostgreSQL state (TestPGTwoRunnersRace,
// TestPGServerDownMidRun).
package backends
