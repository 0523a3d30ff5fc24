package install

import (
	"testing"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
)

var timeAddr = tfaddr.MustParseProviderSource("hashicorp/time")

func TestConstraintString(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"0.14.2"}, "0.14.2"},
		{[]string{"= 0.14.2"}, "0.14.2"},
		{[]string{">= 1.0"}, ">= 1.0.0"},
		{[]string{"~> 0.14"}, "~> 0.14"},
		{[]string{"~> 0.14.0"}, "~> 0.14.0"},
		{[]string{"~> 2"}, "~> 2.0"},
		{[]string{"< 2.0.0, >= 1.2"}, ">= 1.2.0, < 2.0.0"},
		{[]string{">= 1.0", ">= 1.0.0", "!= 1.5.0"}, ">= 1.0.0, != 1.5.0"},
		{[]string{"1.0.0-beta1"}, "1.0.0-beta1"},
		{[]string{"<= 3.0.0", "> 1.0.0", "~> 2.1"}, "> 1.0.0, ~> 2.1, <= 3.0.0"},
	}
	for _, tt := range tests {
		t.Run(fmtList(tt.in), func(t *testing.T) {
			c, err := parseConstraints(timeAddr, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConstraintNewest(t *testing.T) {
	available := []string{"0.9.0", "0.14.1", "0.14.2", "0.15.0-beta1", "1.0.0", "1.1.0-rc1"}
	tests := []struct {
		in   []string
		want string // "" for none
	}{
		{nil, "1.0.0"},
		{[]string{"0.14.2"}, "0.14.2"},
		{[]string{"~> 0.14.0"}, "0.14.2"},
		{[]string{"~> 0.14"}, "0.14.2"},
		{[]string{">= 0.14", "< 1.0"}, "0.14.2"},
		{[]string{"0.15.0-beta1"}, "0.15.0-beta1"},
		{[]string{">= 1.1.0-rc1"}, ""},
		{[]string{"!= 1.0.0"}, "0.14.2"},
		{[]string{"> 5"}, ""},
	}
	var vs []*version.Version
	for _, s := range available {
		vs = append(vs, version.Must(version.NewSemver(s)))
	}
	for _, tt := range tests {
		t.Run(fmtList(tt.in), func(t *testing.T) {
			c, err := parseConstraints(timeAddr, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if v := c.newest(vs); v != nil {
				got = v.String()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConstraintInvalid(t *testing.T) {
	for _, in := range []string{"banana", ">> 1.0", "1.0,", "~> "} {
		t.Run(in, func(t *testing.T) {
			_, err := parseConstraints(timeAddr, []string{in})
			if err == nil {
				t.Fatal("no error")
			}
			if want := "hashicorp/time"; !containsStr(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
		})
	}
}
