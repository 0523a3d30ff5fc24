package config

import (
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Backend is the root module's `terraform { backend "TYPE" { ... } }`
// block: where state is kept.
type Backend struct {
	// Type is "local", "pg", "s3", "gcs", "azurerm" or "http".
	Type string
	// Settings are the block's arguments, evaluated, as BackendSetting
	// encodes them.
	Settings map[string]string
	// Ranges locate each setting's expression, for errors.
	Ranges map[string]hcl.Range
	// DeclRange is the block's header.
	DeclRange hcl.Range
}

// BackendArguments are the backend types Tether supports and the arguments
// each takes, with their types; the names are those of Terraform's local,
// pg, s3, gcs, azurerm and http backends. An argument of Terraform's left
// out here is one Tether does not act on, so naming it is an error. Object,
// list and set arguments are kept in Settings JSON-encoded (BackendSetting).
var BackendArguments = map[string]map[string]cty.Type{
	"local": {"path": cty.String, "workspace_dir": cty.String},
	"pg":    {"conn_str": cty.String, "schema_name": cty.String, "skip_schema_creation": cty.Bool},
	"s3":    s3Arguments(),
	"http":  httpArguments(),
	"azurerm": {
		"storage_account_name": cty.String, "container_name": cty.String, "key": cty.String,
		"access_key": cty.String, "sas_token": cty.String, "environment": cty.String,
		"resource_group_name": cty.String, "subscription_id": cty.String,
		// Azure AD through the Azure CLI only: use_cli must stay true.
		"use_azuread_auth": cty.Bool, "use_cli": cty.Bool, "tenant_id": cty.String,
		// Accepted only false: Tether's azurerm backend refuses a lookup
		// through Resource Manager.
		"lookup_blob_endpoint": cty.Bool,
		"snapshot":             cty.Bool,
	},
	"gcs": gcsArguments(),
}

// gcsArguments are Terraform 1.11's gcs backend's, all of which Tether
// acts on.
func gcsArguments() map[string]cty.Type {
	args := map[string]cty.Type{"impersonate_service_account_delegates": cty.List(cty.String)}
	for _, n := range []string{"bucket", "prefix", "credentials", "access_token", "impersonate_service_account", "encryption_key", "kms_encryption_key", "storage_custom_endpoint"} {
		args[n] = cty.String
	}
	return args
}

func httpArguments() map[string]cty.Type {
	args := map[string]cty.Type{"skip_cert_verification": cty.Bool}
	for _, n := range []string{"address", "update_method", "lock_address", "unlock_address", "lock_method", "unlock_method", "username", "password", "client_ca_certificate_pem", "client_certificate_pem", "client_private_key_pem"} {
		args[n] = cty.String
	}
	for _, n := range []string{"retry_max", "retry_wait_min", "retry_wait_max"} {
		args[n] = cty.Number
	}
	return args
}

// TerraformOnlyArguments are the arguments of Terraform's backends that
// Tether does not act on: naming one is an error that says so, rather
// than that Terraform would not know it either.
var TerraformOnlyArguments = map[string][]string{
	"s3": {"allowed_account_ids", "custom_ca_bundle", "dynamodb_endpoint",
		"ec2_metadata_service_endpoint", "ec2_metadata_service_endpoint_mode", "endpoint", "forbidden_account_ids",
		"force_path_style", "http_proxy", "https_proxy", "iam_endpoint", "insecure", "max_retries", "no_proxy",
		"retry_mode", "sse_customer_key",
		"sts_endpoint", "sts_region", "use_dualstack_endpoint", "use_fips_endpoint"},
	// Azure AD authentication other than the Azure CLI's, and the metadata
	// host: Tether's azurerm backend authenticates with an access key, a
	// SAS token, or Azure AD as the Azure CLI's signed-in account.
	"azurerm": {"ado_pipeline_service_connection_id", "client_certificate", "client_certificate_password",
		"client_certificate_path", "client_id", "client_id_file_path", "client_secret", "client_secret_file_path",
		"endpoint", "metadata_host", "msi_endpoint", "oidc_request_token", "oidc_request_url", "oidc_token",
		"oidc_token_file_path", "use_aks_workload_identity", "use_msi", "use_oidc"},
}

func s3Arguments() map[string]cty.Type {
	stringSet := cty.Set(cty.String)
	args := map[string]cty.Type{
		"endpoints": object(map[string]cty.Type{"s3": cty.String, "dynamodb": cty.String, "sts": cty.String, "iam": cty.String}),
		"assume_role": object(map[string]cty.Type{
			"role_arn": cty.String, "session_name": cty.String, "external_id": cty.String, "duration": cty.String,
			"policy": cty.String, "policy_arns": stringSet, "source_identity": cty.String,
			"tags": cty.Map(cty.String), "transitive_tag_keys": stringSet,
		}, "role_arn"),
		"assume_role_with_web_identity": object(map[string]cty.Type{
			"role_arn": cty.String, "session_name": cty.String, "duration": cty.String,
			"policy": cty.String, "policy_arns": stringSet,
			"web_identity_token": cty.String, "web_identity_token_file": cty.String,
		}, "role_arn"),
		"shared_credentials_files": stringSet,
		"shared_config_files":      stringSet,
	}
	for _, n := range []string{"bucket", "key", "region", "workspace_key_prefix", "kms_key_id", "acl", "dynamodb_table", "profile", "access_key", "secret_key", "token", "shared_credentials_file"} {
		args[n] = cty.String
	}
	for _, n := range []string{"encrypt", "use_lockfile", "use_path_style", "skip_credentials_validation", "skip_region_validation", "skip_requesting_account_id", "skip_metadata_api_check", "skip_s3_checksum"} {
		args[n] = cty.Bool
	}
	return args
}

// object is the type of one of Terraform's nested attributes of a backend:
// its attributes are optional but for those required.
func object(attrs map[string]cty.Type, required ...string) cty.Type {
	var optional []string
	for n := range attrs {
		if !slices.Contains(required, n) {
			optional = append(optional, n)
		}
	}
	return cty.ObjectWithOptionalAttrs(attrs, optional)
}

// BackendTypes lists the supported backend types, for messages.
func BackendTypes() string {
	var names []string
	for n := range BackendArguments {
		names = append(names, `"`+n+`"`)
	}
	sort.Strings(names)
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " and " + names[last]
}
