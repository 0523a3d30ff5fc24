package providertest

import (
	"os"
	"path/filepath"
)

// AWSMirror returns a filesystem mirror folder (the folder above
// registry.terraform.io) that holds hashicorp/aws 5.100.0 for this
// platform, or "" when the machine has none; tests then skip with a
// message. It looks in TETHER_AWS_MIRROR, then /opt/*, /opt/*/*, and the
// folders Terraform searches for plugins.
func AWSMirror() string {
	var candidates []string
	if d := os.Getenv("TETHER_AWS_MIRROR"); d != "" {
		candidates = append(candidates, d)
	}
	for _, g := range []string{"/opt/*", "/opt/*/*", "/usr/local/share/terraform/plugins", "/usr/share/terraform/plugins"} {
		m, _ := filepath.Glob(g)
		candidates = append(candidates, m...)
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates,
			filepath.Join(home, ".terraform.d", "plugins"),
			filepath.Join(home, ".local", "share", "terraform", "plugins"))
	}
	for _, dir := range candidates {
		pkg := filepath.Join(dir, "registry.terraform.io", "hashicorp", "aws", "5.100.0", Platform())
		m, _ := filepath.Glob(filepath.Join(pkg, "terraform-provider-aws_v5*"))
		if len(m) > 0 {
			return dir
		}
	}
	return ""
}
