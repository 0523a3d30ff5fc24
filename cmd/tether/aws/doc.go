// Package aws holds the tether command's differential tests with the real
// hashicorp/aws provider, offline: plans compared with terraform's
// (TestAWSPlanMatchesTerraform, TestAWSBlocksDifferential,
// TestAWSBlocksMixedForms) and the recording differential over the
// corpus in testdata/awscorpus (TestAWSRecordedDifferential).
package aws
