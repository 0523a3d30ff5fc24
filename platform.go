package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Platform is where a stack's functions, routers and stores are deployed:
// Local (the default) or AWS. The command's --platform overrides the
// program's choice.
type Platform interface {
	// impl is the implementation's platform of the same settings.
	impl() sdk.Platform
}

// Local runs functions, routers and stores as processes on this machine
// (the built-in provider's local runtime).
type Local struct{}

func (Local) impl() sdk.Platform { return sdk.Local{} }

// AWS deploys functions to AWS Lambda, routers as API Gateway HTTP APIs
// and stores as DynamoDB tables, through the hashicorp/aws provider. Each
// setting left empty may come from the environment, which also overrides
// the program's: TETHER_AWS_REGION (else AWS_REGION or
// AWS_DEFAULT_REGION), TETHER_AWS_PROFILE, TETHER_AWS_PREFIX,
// TETHER_AWS_TAGS ("k=v,k=v") and TETHER_AWS_OFFLINE. Credentials are the
// provider's own (AWS_ACCESS_KEY_ID, a profile, ...).
type AWS struct {
	// Region is where everything is deployed. Required, here or in the
	// environment.
	Region string
	// Profile is the shared-credentials profile to use.
	Profile string
	// Tags are put on every resource that takes tags.
	Tags map[string]string
	// Prefix starts the names of functions, roles, log groups, APIs and
	// tables, which are unique in an account and region; it defaults to
	// the name of the program's folder.
	Prefix string
	// Offline makes the provider skip every call it can (credentials
	// validation, account id, metadata API), so that a plan works without
	// credentials or network, with fake keys.
	Offline bool
}

func (a AWS) impl() sdk.Platform { return sdk.AWS(a) }
