// Package aws holds the tether command's tests with the real
// hashicorp/aws provider: plans compared with terraform's
// (TestAWSPlanMatchesTerraform, TestAWSBlocksDifferential), the recording
// differential over the corpus in testdata/awscorpus
// (TestAWSRecordedDifferential), and the aws platform deploying Go
// programs onto internal/awsfake (TestAWSPlatform, TestAWSUp).
package aws
