package s3state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hashicorp/aws-sdk-go-base/v2/validation"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
)

// DefaultWorkspaceKeyPrefix is where Terraform keeps the other workspaces.
const DefaultWorkspaceKeyPrefix = "env:"

// Config is a backend "s3" block's settings, with the environment
// variables Terraform reads in place of the arguments left out.
type Config struct {
	Bucket, Key, Region, WorkspaceKeyPrefix string
	Encrypt                                 bool
	KMSKeyID, ACL                           string
	UseLockfile                             bool
	DynamoDBTable                           string
	Endpoints                               Endpoints
	UsePathStyle                            bool
	SkipCredentialsValidation               bool
	SkipMetadataAPICheck                    bool
	SkipS3Checksum                          bool
	Profile, AccessKey, SecretKey, Token    string
	AssumeRole                              *AssumeRole
	WebIdentity                             *WebIdentity
	// SharedCredentialsFiles and SharedConfigFiles replace the SDK's
	// defaults (~/.aws/credentials, AWS_CONFIG_FILE...) when set.
	SharedCredentialsFiles, SharedConfigFiles []string
}

// Endpoints are the endpoints { } of the block.
type Endpoints struct {
	S3       string `json:"s3,omitempty"`
	DynamoDB string `json:"dynamodb,omitempty"`
	STS      string `json:"sts,omitempty"`
	// IAM is accepted as Terraform does; Tether never calls IAM (Terraform
	// does only to find the account id, which Tether does not ask for).
	IAM string `json:"iam,omitempty"`
}

// AssumeRole is the assume_role = { } of the block.
type AssumeRole struct {
	RoleARN           string            `json:"role_arn"`
	SessionName       string            `json:"session_name,omitempty"`
	ExternalID        string            `json:"external_id,omitempty"`
	Duration          string            `json:"duration,omitempty"`
	Policy            string            `json:"policy,omitempty"`
	PolicyARNs        []string          `json:"policy_arns,omitempty"`
	SourceIdentity    string            `json:"source_identity,omitempty"`
	Tags              map[string]string `json:"tags,omitempty"`
	TransitiveTagKeys []string          `json:"transitive_tag_keys,omitempty"`
}

// WebIdentity is the assume_role_with_web_identity = { } of the block.
type WebIdentity struct {
	RoleARN     string   `json:"role_arn"`
	SessionName string   `json:"session_name,omitempty"`
	Duration    string   `json:"duration,omitempty"`
	Policy      string   `json:"policy,omitempty"`
	PolicyARNs  []string `json:"policy_arns,omitempty"`
	Token       string   `json:"web_identity_token,omitempty"`
	TokenFile   string   `json:"web_identity_token_file,omitempty"`
}

// FromSettings reads the settings of a backend "s3" block (objects as JSON)
// and, where they leave an argument out, the environment, as Terraform's
// s3 backend does.
func FromSettings(s map[string]string, getenv func(string) string) (Config, error) {
	c := Config{
		Bucket: s["bucket"], Key: s["key"], Region: s["region"],
		KMSKeyID: s["kms_key_id"], ACL: s["acl"], DynamoDBTable: s["dynamodb_table"],
		Profile: s["profile"], AccessKey: s["access_key"], SecretKey: s["secret_key"], Token: s["token"],
		Encrypt: s["encrypt"] == "true", UseLockfile: s["use_lockfile"] == "true",
		UsePathStyle:              s["use_path_style"] == "true",
		SkipCredentialsValidation: s["skip_credentials_validation"] == "true",
		SkipMetadataAPICheck:      s["skip_metadata_api_check"] == "true",
		SkipS3Checksum:            s["skip_s3_checksum"] == "true",
	}
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf(`the "s3" backend: `+format, args...)
	}
	if c.Bucket == "" {
		return fail(`the argument "bucket" is required`)
	}
	if c.Key == "" {
		return fail(`the argument "key" is required`)
	}
	if strings.HasPrefix(c.Key, "/") || strings.HasSuffix(c.Key, "/") {
		return fail(`the argument "key" must not start or end with '/', as Terraform requires: %q`, c.Key)
	}
	if p, ok := s["workspace_key_prefix"]; ok {
		if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
			return fail(`the argument "workspace_key_prefix" must not start or end with '/': %q`, p)
		}
		c.WorkspaceKeyPrefix = p
	} else {
		c.WorkspaceKeyPrefix = DefaultWorkspaceKeyPrefix
	}
	// As Terraform: a region written in the block is checked against the
	// regions aws-sdk-go-base knows (the same list, the same version as
	// Terraform 1.11's), unless skip_region_validation says it is newer
	// than the list; one from the environment is taken as it is.
	if c.Region != "" && s["skip_region_validation"] != "true" {
		if err := validation.SupportedRegion(c.Region); err != nil {
			return fail(`the argument "region": %v; set skip_region_validation = true for a region newer than this list`, err)
		}
	}
	if c.Region == "" {
		c.Region = getenv("AWS_REGION")
	}
	if c.Region == "" {
		c.Region = getenv("AWS_DEFAULT_REGION")
	}
	if c.Region == "" {
		return fail(`the argument "region" or the environment variable AWS_REGION or AWS_DEFAULT_REGION must be set`)
	}
	if raw := s["endpoints"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &c.Endpoints); err != nil {
			return fail(`the argument "endpoints": %v`, err)
		}
	}
	// The endpoint environment variables, the deprecated names after the
	// current ones, as Terraform reads them.
	for _, e := range []struct {
		field *string
		names []string
	}{
		{&c.Endpoints.S3, []string{"AWS_ENDPOINT_URL_S3", "AWS_S3_ENDPOINT"}},
		{&c.Endpoints.DynamoDB, []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_DYNAMODB_ENDPOINT"}},
		{&c.Endpoints.STS, []string{"AWS_ENDPOINT_URL_STS", "AWS_STS_ENDPOINT"}},
		{&c.Endpoints.IAM, []string{"AWS_ENDPOINT_URL_IAM", "AWS_IAM_ENDPOINT"}},
	} {
		for _, n := range e.names {
			if *e.field == "" {
				*e.field = getenv(n)
			}
		}
	}
	// The shared files as Terraform picks them: the deprecated
	// shared_credentials_file, then shared_credentials_files or else
	// AWS_SHARED_CREDENTIALS_FILE over it; shared_config_files or else
	// AWS_SHARED_CONFIG_FILE (the SDK itself reads AWS_CONFIG_FILE).
	if _, ok := s["shared_credentials_file"]; ok {
		if _, both := s["shared_credentials_files"]; both {
			return fail(`the arguments "shared_credentials_file" and "shared_credentials_files" cannot be set together`)
		}
		c.SharedCredentialsFiles = []string{s["shared_credentials_file"]}
	}
	for _, f := range []struct {
		field     *[]string
		name, env string
	}{
		{&c.SharedCredentialsFiles, "shared_credentials_files", "AWS_SHARED_CREDENTIALS_FILE"},
		{&c.SharedConfigFiles, "shared_config_files", "AWS_SHARED_CONFIG_FILE"},
	} {
		if raw, ok := s[f.name]; ok {
			if err := json.Unmarshal([]byte(raw), f.field); err != nil {
				return fail(`the argument %q: %v`, f.name, err)
			}
		} else if v := getenv(f.env); v != "" {
			*f.field = []string{v}
		}
		for i, p := range *f.field {
			(*f.field)[i] = expandHome(p, getenv("HOME"))
		}
	}
	if raw := s["assume_role"]; raw != "" {
		c.AssumeRole = &AssumeRole{}
		if err := json.Unmarshal([]byte(raw), c.AssumeRole); err != nil {
			return fail(`the argument "assume_role": %v`, err)
		}
		if err := checkRole("assume_role", c.AssumeRole.RoleARN, c.AssumeRole.Duration); err != nil {
			return fail("%v", err)
		}
	}
	if raw := s["assume_role_with_web_identity"]; raw != "" {
		c.WebIdentity = &WebIdentity{}
		if err := json.Unmarshal([]byte(raw), c.WebIdentity); err != nil {
			return fail(`the argument "assume_role_with_web_identity": %v`, err)
		}
		w := c.WebIdentity
		if err := checkRole("assume_role_with_web_identity", w.RoleARN, w.Duration); err != nil {
			return fail("%v", err)
		}
		if (w.Token == "") == (w.TokenFile == "") {
			return fail(`assume_role_with_web_identity: exactly one of "web_identity_token" and "web_identity_token_file" must be set`)
		}
	}
	// Terraform reads this variable, and Tether does not encrypt with a
	// customer key: using the state without it would be silently wrong.
	if getenv("AWS_SSE_CUSTOMER_KEY") != "" {
		return fail(`the environment sets AWS_SSE_CUSTOMER_KEY, which Terraform's s3 backend uses to encrypt the state with a customer-provided key; Tether does not support it: unset it, or keep this state with Terraform`)
	}
	if c.KMSKeyID != "" && !c.Encrypt {
		// Terraform requires encrypt with kms_key_id too.
		return fail(`the argument "kms_key_id" needs encrypt = true`)
	}
	return c, nil
}

// checkRole checks a role to assume as Terraform does: a role ARN, and a
// duration between 15 minutes and 12 hours.
func checkRole(block, arn, duration string) error {
	if arn == "" {
		return fmt.Errorf(`%s: the argument "role_arn" is required`, block)
	}
	if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":role/") {
		return fmt.Errorf(`%s: the argument "role_arn" must be the ARN of an IAM role (arn:aws:iam::ACCOUNT:role/NAME), not %q`, block, arn)
	}
	if duration == "" {
		return nil
	}
	d, err := time.ParseDuration(duration)
	if err != nil {
		return fmt.Errorf(`%s: the argument "duration" must be a duration such as "1h": %v`, block, err)
	}
	if d < 15*time.Minute || d > 12*time.Hour {
		return fmt.Errorf(`%s: the argument "duration" must be between 15 minutes and 12 hours, not %s`, block, duration)
	}
	return nil
}

// clients are the AWS clients a backend uses.
type clients struct {
	s3  *s3.Client
	ddb *dynamodb.Client
}

// newClients makes the clients through aws-sdk-go-v2's own credential
// chain (environment, shared files and profile, IMDS unless skipped),
// with the keys of the block over it and the role to assume on top.
func (c Config) newClients(ctx context.Context) (*clients, error) {
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(c.Region)}
	if c.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(c.Profile))
	}
	if c.Endpoints.STS != "" {
		// The SDK's own STS clients (a profile's role_arn, the web
		// identity of AWS_ROLE_ARN) go to endpoints.sts too, never to AWS.
		opts = append(opts, awsconfig.WithEndpointResolverWithOptions(aws.EndpointResolverWithOptionsFunc( //nolint:staticcheck // the only hook reaching the SDK's internal STS clients
			func(service, region string, _ ...any) (aws.Endpoint, error) {
				if service == sts.ServiceID {
					return aws.Endpoint{URL: c.Endpoints.STS}, nil
				}
				return aws.Endpoint{}, &aws.EndpointNotFoundError{}
			})))
	}
	if len(c.SharedCredentialsFiles) > 0 {
		opts = append(opts, awsconfig.WithSharedCredentialsFiles(c.SharedCredentialsFiles))
	}
	if len(c.SharedConfigFiles) > 0 {
		opts = append(opts, awsconfig.WithSharedConfigFiles(c.SharedConfigFiles))
	}
	if c.AccessKey != "" || c.SecretKey != "" {
		if c.AccessKey == "" || c.SecretKey == "" {
			return nil, errors.New(`the "s3" backend: access_key and secret_key must be given together`)
		}
		opts = append(opts, awsconfig.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey, SessionToken: c.Token, Source: "backend block"}, nil
		})))
	}
	if c.SkipMetadataAPICheck {
		opts = append(opts, awsconfig.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	// Checksums as Terraform sends them: SHA-256 on puts unless
	// skip_s3_checksum, nothing the service did not ask for otherwise.
	opts = append(opts, awsconfig.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		awsconfig.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf(`the "s3" backend: reading the AWS configuration: %w`, err)
	}
	newSTS := func() *sts.Client {
		return sts.NewFromConfig(cfg, func(o *sts.Options) {
			if c.Endpoints.STS != "" {
				o.BaseEndpoint = aws.String(c.Endpoints.STS)
			}
		})
	}
	// The web identity's role first, then assume_role over it, as
	// Terraform's aws-sdk-go-base chains them.
	if w := c.WebIdentity; w != nil {
		var token stscreds.IdentityTokenRetriever = stscreds.IdentityTokenFile(w.TokenFile)
		if w.Token != "" {
			token = staticToken(w.Token)
		}
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewWebIdentityRoleProvider(newSTS(), w.RoleARN, token, func(o *stscreds.WebIdentityRoleOptions) {
			if w.SessionName != "" {
				o.RoleSessionName = w.SessionName
			}
			o.Duration, _ = time.ParseDuration(w.Duration)
			o.Policy = optional(w.Policy)
			o.PolicyARNs = policyARNs(w.PolicyARNs)
		}))
	}
	if r := c.AssumeRole; r != nil {
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(newSTS(), r.RoleARN, func(o *stscreds.AssumeRoleOptions) {
			if r.SessionName != "" {
				o.RoleSessionName = r.SessionName
			}
			o.ExternalID = optional(r.ExternalID)
			o.Duration, _ = time.ParseDuration(r.Duration)
			o.Policy = optional(strings.TrimSpace(r.Policy))
			o.PolicyARNs = policyARNs(r.PolicyARNs)
			o.SourceIdentity = optional(r.SourceIdentity)
			for _, k := range slices.Sorted(maps.Keys(r.Tags)) {
				o.Tags = append(o.Tags, ststypes.Tag{Key: aws.String(k), Value: aws.String(r.Tags[k])})
			}
			o.TransitiveTagKeys = r.TransitiveTagKeys
		}))
	}
	stsClient := newSTS()
	if !c.SkipCredentialsValidation {
		if _, err := stsClient.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
			return nil, fmt.Errorf(`the "s3" backend: validating the AWS credentials (sts:GetCallerIdentity; skip_credentials_validation = true skips it): %w`, err)
		}
	}
	out := &clients{s3: s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoints.S3 != "" {
			o.BaseEndpoint = aws.String(c.Endpoints.S3)
		}
		o.UsePathStyle = c.UsePathStyle
	})}
	if c.DynamoDBTable != "" {
		out.ddb = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			if c.Endpoints.DynamoDB != "" {
				o.BaseEndpoint = aws.String(c.Endpoints.DynamoDB)
			}
		})
	}
	return out, nil
}

type staticToken string

func (t staticToken) GetIdentityToken() ([]byte, error) { return []byte(t), nil }

// optional is nil for an argument left out.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

func policyARNs(arns []string) []ststypes.PolicyDescriptorType {
	var out []ststypes.PolicyDescriptorType
	for _, a := range arns {
		out = append(out, ststypes.PolicyDescriptorType{Arn: aws.String(a)})
	}
	return out
}

// expandHome expands a leading ~/ as aws-sdk-go-base does.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return home + "/" + rest
	}
	return p
}
