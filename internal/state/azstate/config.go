package azstate

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// EndpointVariable is Tether's environment variable for the blob service
// URL of an account reached through a URL other than
// https://ACCOUNT.blob.SUFFIX (Azurite, Azure Stack, a proxy). It is not
// an argument of the block so that Terraform still reads the block.
const EndpointVariable = "TETHER_AZURERM_BLOB_ENDPOINT"

// storageSuffixes are the storage domains of the environments Terraform's
// azurerm backend knows by name.
var storageSuffixes = map[string]string{
	"public":       "core.windows.net",
	"usgovernment": "core.usgovcloudapi.net",
	"china":        "core.chinacloudapi.cn",
}

// Config is a backend "azurerm" block's settings, with the ARM_*
// environment variables Terraform reads in place of the arguments left
// out.
type Config struct {
	StorageAccountName, ContainerName, Key string
	// AccessKey or SASToken authenticates: Tether does not ask Azure
	// Resource Manager for the account's keys.
	AccessKey, SASToken string
	// UseAzureAD authenticates to the storage account with Azure AD, as
	// the Azure CLI's signed-in account (az login), in TenantID when set.
	UseAzureAD bool
	TenantID   string
	// Snapshot snapshots the state blob before each write, as Terraform's
	// snapshot = true does.
	Snapshot bool
	// Environment is public, usgovernment or china.
	Environment string
	// Endpoint is the blob service URL, https://ACCOUNT.blob.SUFFIX
	// unless EndpointVariable sets another.
	Endpoint string
	// ResourceGroupName and SubscriptionID name the account; with a key
	// or SAS token Terraform does not use them either.
	ResourceGroupName, SubscriptionID string
}

// FromSettings reads the settings of a backend "azurerm" block and, where
// they leave an argument out, the environment, as Terraform's azurerm
// backend does. Settings that would make Terraform find or reach the state
// in a way Tether does not (Azure AD, Resource Manager, a metadata host)
// are errors naming them.
func FromSettings(s map[string]string, getenv func(string) string) (Config, error) {
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf(`the "azurerm" backend: `+format, args...)
	}
	str := func(arg, env string) string {
		if v, ok := s[arg]; ok {
			return v
		}
		if env != "" {
			return getenv(env)
		}
		return ""
	}
	flag := func(arg string, envs ...string) (bool, string, error) {
		if v, ok := s[arg]; ok {
			return v == "true", fmt.Sprintf("the argument %q", arg), nil
		}
		for _, e := range envs {
			if v := getenv(e); v != "" {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return false, "", fmt.Errorf(`the "azurerm" backend: the environment variable %s must be true or false, not %q`, e, v)
				}
				return b, "the environment variable " + e, nil
			}
		}
		return false, "", nil
	}
	c := Config{
		StorageAccountName: s["storage_account_name"], ContainerName: s["container_name"], Key: s["key"],
		AccessKey: str("access_key", "ARM_ACCESS_KEY"), SASToken: strings.TrimPrefix(str("sas_token", "ARM_SAS_TOKEN"), "?"),
		Environment:       str("environment", "ARM_ENVIRONMENT"),
		ResourceGroupName: s["resource_group_name"], SubscriptionID: str("subscription_id", "ARM_SUBSCRIPTION_ID"),
	}
	for _, arg := range []string{"storage_account_name", "container_name", "key"} {
		if s[arg] == "" {
			return fail("the argument %q is required", arg)
		}
	}
	var err error
	if c.Snapshot, _, err = flag("snapshot", "ARM_SNAPSHOT"); err != nil {
		return Config{}, err
	}
	// What Terraform would use to find the account elsewhere, or to
	// authenticate otherwise: Tether would reach another place or none,
	// so each is refused rather than ignored.
	if c.UseAzureAD, _, err = flag("use_azuread_auth", "ARM_USE_AZUREAD"); err != nil {
		return Config{}, err
	}
	if c.UseAzureAD && c.AccessKey == "" && c.SASToken == "" {
		if err := azureADThroughCLI(s, getenv, flag); err != nil {
			return Config{}, err
		}
		c.TenantID = str("tenant_id", "ARM_TENANT_ID")
	}
	if on, where, err := flag("lookup_blob_endpoint", "ARM_USE_DNS_ZONE_ENDPOINT"); err != nil {
		return Config{}, err
	} else if on {
		return fail("%s asks Terraform to look the blob endpoint up through Azure Resource Manager, which Tether does not do: unset it, and set %s to the account's blob endpoint if it is not https://ACCOUNT.blob.SUFFIX", where, EndpointVariable)
	}
	for _, n := range []string{"ARM_METADATA_HOSTNAME", "ARM_METADATA_HOST"} {
		if getenv(n) != "" {
			return fail("the environment sets %s, which makes Terraform read its cloud's endpoints from a metadata host; Tether does not: unset it, choose environment = \"public\", \"usgovernment\" or \"china\", or set %s", n, EndpointVariable)
		}
	}
	if c.Environment == "" {
		c.Environment = "public"
	}
	suffix, ok := storageSuffixes[c.Environment]
	if !ok {
		return fail(`the environment %q is not one Tether knows: it takes "public", "usgovernment" or "china"`, c.Environment)
	}
	if c.AccessKey == "" && c.SASToken == "" && !c.UseAzureAD {
		return fail("Tether needs the storage account's access_key (or ARM_ACCESS_KEY), a sas_token (or ARM_SAS_TOKEN), or use_azuread_auth = true; it does not list the account's keys through Azure Resource Manager as Terraform does without them")
	}
	c.Endpoint = fmt.Sprintf("https://%s.blob.%s/", c.StorageAccountName, suffix)
	if e := getenv(EndpointVariable); e != "" {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("%s must be an http or https URL, not %q", EndpointVariable, e)
		}
		c.Endpoint = strings.TrimSuffix(e, "/") + "/"
	}
	return c, nil
}

// azureADThroughCLI checks that Terraform, given use_azuread_auth, would
// authenticate as Tether does: through the Azure CLI. Terraform tries a
// client certificate, a client secret, OIDC and a managed identity
// first; each of them set (the block refuses their arguments, so here
// from the environment) is refused by name, as is use_cli = false.
func azureADThroughCLI(s map[string]string, getenv func(string) string, flag func(string, ...string) (bool, string, error)) error {
	for _, n := range []string{"ARM_CLIENT_CERTIFICATE", "ARM_CLIENT_CERTIFICATE_PATH", "ARM_CLIENT_SECRET", "ARM_CLIENT_SECRET_FILE_PATH",
		"ARM_OIDC_TOKEN", "ARM_OIDC_TOKEN_FILE_PATH"} {
		if getenv(n) != "" {
			return fmt.Errorf(`the "azurerm" backend: with use_azuread_auth, the environment sets %s, with which Terraform would authenticate; Tether authenticates to Azure AD only as the Azure CLI's signed-in account (az login): unset it, or give an access_key or sas_token`, n)
		}
	}
	for _, f := range [][]string{{"use_msi", "ARM_USE_MSI"}, {"use_oidc", "ARM_USE_OIDC"}, {"use_aks_workload_identity", "ARM_USE_AKS_WORKLOAD_IDENTITY"}} {
		if on, where, err := flag(f[0], f[1]); err != nil {
			return err
		} else if on {
			return fmt.Errorf(`the "azurerm" backend: with use_azuread_auth, %s asks for a way of authenticating Tether does not support; it authenticates to Azure AD only as the Azure CLI's signed-in account (az login)`, where)
		}
	}
	if s["use_cli"] == "false" || s["use_cli"] == "" && getenv("ARM_USE_CLI") != "" && !strings.EqualFold(getenv("ARM_USE_CLI"), "true") && getenv("ARM_USE_CLI") != "1" {
		return fmt.Errorf(`the "azurerm" backend: use_azuread_auth with use_cli = false: Tether authenticates to Azure AD only as the Azure CLI's signed-in account (az login)`)
	}
	return nil
}
