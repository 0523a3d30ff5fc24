// Package platform holds the tests of the aws platform through the tether
// command: Go programs and HCL synthesised for AWS and planned through the
// real hashicorp/aws provider (TestAWSPlatform, TestAWSPlatformHCL), and
// deployed onto internal/awsfake, their handlers answering (TestAWSUp,
// TestAWSUpStore).
package platform
