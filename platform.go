package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Platform is where a stack's functions, routers and stores are deployed:
// Local (the default) or AWS. The command's --platform overrides the
// program's choice.
type Platform = sdk.Platform

// Local runs functions, routers and stores as processes on this machine
// (the built-in provider's local runtime).
type Local = sdk.Local

// AWS deploys functions to AWS Lambda, routers as API Gateway HTTP APIs
// and stores as DynamoDB tables, through the hashicorp/aws provider. Each
// setting left empty may come from the environment, which also overrides
// the program's: TETHER_AWS_REGION (else AWS_REGION or
// AWS_DEFAULT_REGION), TETHER_AWS_PROFILE, TETHER_AWS_PREFIX,
// TETHER_AWS_TAGS ("k=v,k=v") and TETHER_AWS_OFFLINE. Credentials are the
// provider's own (AWS_ACCESS_KEY_ID, a profile, ...).
type AWS = sdk.AWS
