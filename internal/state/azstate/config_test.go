package azstate

import (
	"strings"
	"testing"
)

// The block's arguments win over the ARM_* variables Terraform reads in
// their place; what Tether does not act on is refused naming it.
func TestFromSettings(t *testing.T) {
	base := map[string]string{"storage_account_name": "acct", "container_name": "tfstate", "key": "prod.tfstate"}
	for _, c := range []struct {
		name     string
		settings map[string]string
		env      map[string]string
		want     func(Config) bool
		err      string
	}{
		{name: "key from ARM_ACCESS_KEY", env: map[string]string{"ARM_ACCESS_KEY": "k"},
			want: func(c Config) bool {
				return c.AccessKey == "k" && c.Endpoint == "https://acct.blob.core.windows.net/" && !c.Snapshot
			}},
		{name: "block over environment", settings: map[string]string{"access_key": "block", "snapshot": "false"},
			env:  map[string]string{"ARM_ACCESS_KEY": "env", "ARM_SNAPSHOT": "true"},
			want: func(c Config) bool { return c.AccessKey == "block" && !c.Snapshot }},
		{name: "SAS token without its question mark", env: map[string]string{"ARM_SAS_TOKEN": "?sv=1&sig=x", "ARM_SNAPSHOT": "true"},
			want: func(c Config) bool { return c.SASToken == "sv=1&sig=x" && c.Snapshot }},
		{name: "environment china", settings: map[string]string{"access_key": "k"}, env: map[string]string{"ARM_ENVIRONMENT": "china"},
			want: func(c Config) bool { return c.Endpoint == "https://acct.blob.core.chinacloudapi.cn/" }},
		{name: "endpoint variable", settings: map[string]string{"access_key": "k"}, env: map[string]string{EndpointVariable: "http://127.0.0.1:10000/acct"},
			want: func(c Config) bool { return c.Endpoint == "http://127.0.0.1:10000/acct/" }},
		{name: "resource group accepted", settings: map[string]string{"access_key": "k", "resource_group_name": "rg"},
			want: func(c Config) bool { return c.ResourceGroupName == "rg" }},
		{name: "no key", err: `Tether needs the storage account's access_key`},
		{name: "missing container", settings: map[string]string{"container_name": ""}, err: `the argument "container_name" is required`},
		{name: "azure ad through the CLI", settings: map[string]string{"use_azuread_auth": "true"}, env: map[string]string{"ARM_TENANT_ID": "t1"},
			want: func(c Config) bool { return c.UseAzureAD && c.TenantID == "t1" }},
		{name: "a key wins over azure ad, as in Terraform", settings: map[string]string{"access_key": "k"}, env: map[string]string{"ARM_USE_AZUREAD": "true", "ARM_CLIENT_SECRET": "s"},
			want: func(c Config) bool { return c.AccessKey == "k" }},
		{name: "azure ad with a client secret", env: map[string]string{"ARM_USE_AZUREAD": "true", "ARM_CLIENT_SECRET": "s"}, err: `with use_azuread_auth, the environment sets ARM_CLIENT_SECRET`},
		{name: "azure ad with a managed identity", env: map[string]string{"ARM_USE_AZUREAD": "true", "ARM_USE_MSI": "true"}, err: `the environment variable ARM_USE_MSI asks for a way of authenticating Tether does not support`},
		{name: "azure ad without the CLI", settings: map[string]string{"use_azuread_auth": "true", "use_cli": "false"}, err: `use_azuread_auth with use_cli = false`},
		{name: "blob endpoint lookup", settings: map[string]string{"access_key": "k"}, env: map[string]string{"ARM_USE_DNS_ZONE_ENDPOINT": "true"}, err: `ARM_USE_DNS_ZONE_ENDPOINT asks Terraform to look the blob endpoint up`},
		{name: "metadata host", settings: map[string]string{"access_key": "k"}, env: map[string]string{"ARM_METADATA_HOSTNAME": "m.example"}, err: `the environment sets ARM_METADATA_HOSTNAME`},
		{name: "unknown environment", settings: map[string]string{"access_key": "k", "environment": "german"}, err: `the environment "german" is not one Tether knows`},
		{name: "bad boolean", settings: map[string]string{"access_key": "k"}, env: map[string]string{"ARM_SNAPSHOT": "yes"}, err: `ARM_SNAPSHOT must be true or false`},
		{name: "bad endpoint", settings: map[string]string{"access_key": "k"}, env: map[string]string{EndpointVariable: "127.0.0.1:10000"}, err: EndpointVariable + ` must be an http or https URL`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := map[string]string{}
			for k, v := range base {
				s[k] = v
			}
			for k, v := range c.settings {
				if v == "" {
					delete(s, k)
				} else {
					s[k] = v
				}
			}
			cfg, err := FromSettings(s, func(n string) string { return c.env[n] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), `the "azurerm" backend: `) {
					t.Fatalf("want an error naming the backend and %q, got %v", c.err, err)
				}
				return
			}
			if err != nil || !c.want(cfg) {
				t.Fatalf("got %+v, %v", cfg, err)
			}
		})
	}
}
