package addr

import "testing"

func TestProviderConfigRoundTrip(t *testing.T) {
	for _, s := range []string{
		`provider["registry.terraform.io/hashicorp/aws"]`,
		`provider["registry.terraform.io/hashicorp/aws"].west`,
		`module.net.provider["registry.terraform.io/hashicorp/time"]`,
		`provider["example.com/acme/widget"].a_b`,
		`provider["registry.terraform.io/hashicorp/aws"].by_region["us-east-1"]`,
		`provider["registry.terraform.io/hashicorp/aws"].each[0]`,
	} {
		t.Run(s, func(t *testing.T) {
			p, err := ParseProviderConfig(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.String(); got != s {
				t.Errorf("String() = %s, want %s", got, s)
			}
		})
	}
}

func TestProviderConfigLegacyLocalName(t *testing.T) {
	p, err := ParseProviderConfig("tether")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), `provider["registry.terraform.io/tetherhq/tether"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestProviderConfigRejectsNonsense(t *testing.T) {
	for _, s := range []string{"", "aws", `provider[aws]`, `provider["nope nope"]`, `provider["hashicorp/aws"].`, `xprovider["hashicorp/aws"]`} {
		if _, err := ParseProviderConfig(s); err == nil {
			t.Errorf("ParseProviderConfig(%q) succeeded", s)
		}
	}
}
