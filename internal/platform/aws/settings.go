package aws

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherhq/tether/internal/config"
)

// SettingsFrom reads the platform's settings: the program's own (p, may
// be nil), each overridden by the environment, TETHER_AWS_REGION (or
// AWS_REGION, AWS_DEFAULT_REGION when neither says), TETHER_AWS_PROFILE,
// TETHER_AWS_PREFIX, TETHER_AWS_TAGS ("k=v,k=v") and TETHER_AWS_OFFLINE
// (true or false). The prefix defaults to the name of the configuration
// folder dir. A region is required.
func SettingsFrom(p *config.Platform, environ []string, dir string) (Settings, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var s Settings
	var tags string
	if p != nil {
		for _, k := range slices.Sorted(maps.Keys(p.Settings)) {
			v := p.Settings[k]
			switch k {
			case "region":
				s.Region = v
			case "profile":
				s.Profile = v
			case "prefix":
				s.Prefix = v
			case "offline":
				s.Offline = v == "true"
			default:
				return s, fmt.Errorf("the aws platform has no setting %q", k)
			}
		}
		if len(p.Tags) > 0 {
			s.Tags = map[string]string{}
			for k, v := range p.Tags {
				s.Tags[k] = v
			}
		}
	}
	pick := func(dst *string, names ...string) {
		for _, n := range names {
			if v := env[n]; v != "" {
				*dst = v
				return
			}
		}
	}
	pick(&s.Region, "TETHER_AWS_REGION")
	if s.Region == "" {
		pick(&s.Region, "AWS_REGION", "AWS_DEFAULT_REGION")
	}
	pick(&s.Profile, "TETHER_AWS_PROFILE")
	pick(&s.Prefix, "TETHER_AWS_PREFIX")
	pick(&tags, "TETHER_AWS_TAGS")
	if v := env["TETHER_AWS_OFFLINE"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return s, fmt.Errorf("TETHER_AWS_OFFLINE is %q, not true or false", v)
		}
		s.Offline = b
	}
	if tags != "" {
		s.Tags = map[string]string{}
		for _, kv := range strings.Split(tags, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return s, fmt.Errorf("TETHER_AWS_TAGS holds %q, not KEY=VALUE", kv)
			}
			s.Tags[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if s.Region == "" {
		return s, fmt.Errorf("the aws platform deploys to one region, which a store's endpoint names too, and none is set: set it in the program (tether.AWS{Region: \"eu-west-1\"}) or in the environment (TETHER_AWS_REGION, AWS_REGION or AWS_DEFAULT_REGION)")
	}
	if s.Prefix == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return s, err
		}
		s.Prefix = unnamed.ReplaceAllString(filepath.Base(abs), "-")
	}
	return s, nil
}
