package install

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"
)

func TestLoadCLIConfig(t *testing.T) {
	tests := []struct {
		name string
		src  string
		env  []string
		want CLIConfig // File is checked apart
	}{
		{
			name: "methods",
			src: `
provider_installation {
  filesystem_mirror {
    path    = "/srv/mirror"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://mirror.example.com/providers"
    exclude = ["hashicorp/aws"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
`,
			want: CLIConfig{Methods: []Method{
				{Kind: FilesystemMirror, Location: "/srv/mirror", Include: []string{"example.com/*/*"}},
				{Kind: NetworkMirror, Location: "https://mirror.example.com/providers/", Exclude: []string{"hashicorp/aws"}},
				{Kind: Direct, Exclude: []string{"example.com/*/*"}},
			}},
		},
		{
			name: "dev overrides in HCL 1 form",
			src: `
provider_installation {
  dev_overrides {
    "hashicorp/time" = "/home/me/time"
    "example.com/me/thing" = "/home/me/thing"
  }
  direct {}
}
`,
			want: CLIConfig{
				Methods: []Method{{Kind: Direct}},
				DevOverrides: map[tfaddr.Provider]string{
					tfaddr.MustParseProviderSource("hashicorp/time"):       "/home/me/time",
					tfaddr.MustParseProviderSource("example.com/me/thing"): "/home/me/thing",
				},
			},
		},
		{
			name: "cache and credentials",
			src: `
plugin_cache_dir = "/var/cache/tf"
disable_checkpoint = true
credentials "app.terraform.io" {
  token = "from-file"
}
credentials "example.com" {
  token = "other"
}
provider_installation {
  direct {}
}
`,
			env: []string{"TF_TOKEN_app_terraform_io=from-env", "TF_TOKEN_my__registry_example_com=dashed"},
			want: CLIConfig{
				Methods:        []Method{{Kind: Direct}},
				PluginCacheDir: "/var/cache/tf",
				Tokens:         map[string]string{"app.terraform.io": "from-env", "example.com": "other", "my-registry.example.com": "dashed"},
			},
		},
		{
			name: "cache from the environment wins",
			src:  "plugin_cache_dir = \"/from/file\"\nprovider_installation {\n  direct {}\n}\n",
			env:  []string{"TF_PLUGIN_CACHE_DIR=/from/env"},
			want: CLIConfig{Methods: []Method{{Kind: Direct}}, PluginCacheDir: "/from/env"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cli.tfrc")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := LoadCLIConfig(append([]string{"TF_CLI_CONFIG_FILE=" + path}, tt.env...), dir, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.File != path {
				t.Errorf("File = %q, want %q", got.File, path)
			}
			got.File = ""
			if tt.want.Tokens == nil {
				tt.want.Tokens = map[string]string{}
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestLoadCLIConfigInvalid(t *testing.T) {
	tests := []struct {
		name, src, want string // want: the error's start after the file name
	}{
		{"syntax", "provider_installation {\n  direct {\n}\n", ":1:23: Unclosed configuration block"},
		{"unknown method", "provider_installation {\n  ftp_mirror {}\n}\n", ":2:3: Unsupported block type"},
		{"method with a label", "provider_installation {\n  direct \"x\" {}\n}\n", ":2:10: Extraneous label for direct"},
		{"argument in provider_installation", "provider_installation {\n  path = \"/x\"\n}\n", ":2:3: Unsupported argument"},
		{"missing path", "provider_installation {\n  filesystem_mirror {}\n}\n", ":2:3: Missing required argument"},
		{"bad url", "provider_installation {\n  network_mirror {\n    url = \"http://x.example.com/\"\n  }\n}\n", ":3:11: Invalid network mirror URL"},
		{"bad pattern", "provider_installation {\n  direct {\n    exclude = [\"*/time\"]\n  }\n}\n", ":3:15: Invalid provider pattern"},
		{"include not a list", "provider_installation {\n  direct {\n    include = \"hashicorp/*\"\n  }\n}\n", ":3:15: Incorrect value type"},
		{"unknown argument", "provider_installation {\n  direct {\n    path = \"/x\"\n  }\n}\n", ":3:5: Unsupported argument"},
		{"two blocks", "provider_installation {\n  direct {}\n}\nprovider_installation {\n  direct {}\n}\n", ":4:1: Multiple provider_installation blocks"},
		{"bad override", "provider_installation {\n  dev_overrides {\n    \"not an address\" = \"/x\"\n  }\n}\n", ":3:5: Invalid provider source address"},
		{"cache dir not a string", "plugin_cache_dir = 3\n", ":1:20: Incorrect value type"},
		{"may break not a bool", "plugin_cache_may_break_dependency_lock_file = \"yes\"\n", ":1:47: Incorrect value type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cli.tfrc")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCLIConfig([]string{"TF_CLI_CONFIG_FILE=" + path}, dir, dir)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), path+tt.want) {
				t.Errorf("error %q\ndoes not start with %q", err, path+tt.want)
			}
		})
	}
}

func TestLoadCLIConfigImplied(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	data := t.TempDir()
	// A provider in ~/.terraform.d/plugins, one in the working folder's
	// terraform.d/plugins; XDG_DATA_DIRS points at an empty folder.
	for _, p := range []string{
		filepath.Join(home, ".terraform.d/plugins/registry.terraform.io/hashicorp/time/0.14.2", hostPlatform),
		filepath.Join(work, "terraform.d/plugins/example.com/me/thing/1.0.0", hostPlatform),
	} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"XDG_DATA_DIRS=" + data, "XDG_DATA_HOME=" + filepath.Join(home, "nothing")}
	// No TF_CLI_CONFIG_FILE and no ~/.terraformrc: no file, no error.
	got, err := LoadCLIConfig(env, home, work)
	if err != nil {
		t.Fatal(err)
	}
	want := []Method{
		{Kind: FilesystemMirror, Location: filepath.Join(work, "terraform.d/plugins")},
		{Kind: FilesystemMirror, Location: filepath.Join(home, ".terraform.d/plugins")},
		{Kind: Direct, Exclude: []string{"example.com/me/thing", "registry.terraform.io/hashicorp/time"}},
	}
	if got.File != "" || !got.Implied || !reflect.DeepEqual(got.Methods, want) {
		t.Errorf("got %+v\nwant methods %+v", got, want)
	}
	// A TF_CLI_CONFIG_FILE that does not exist is no error either.
	if _, err := LoadCLIConfig(append(env, "TF_CLI_CONFIG_FILE="+filepath.Join(home, "absent")), home, work); err != nil {
		t.Error(err)
	}
}

func TestMethodServes(t *testing.T) {
	tests := []struct {
		m    Method
		addr string
		want bool
	}{
		{Method{}, "hashicorp/time", true},
		{Method{Include: []string{"hashicorp/*"}}, "hashicorp/time", true},
		{Method{Include: []string{"hashicorp/*"}}, "example.com/hashicorp/time", false},
		{Method{Include: []string{"example.com/*/*"}}, "example.com/me/thing", true},
		{Method{Include: []string{"*/*/*"}}, "example.com/me/thing", true},
		{Method{Exclude: []string{"registry.terraform.io/hashicorp/time"}}, "hashicorp/time", false},
		{Method{Exclude: []string{"hashicorp/time"}}, "hashicorp/local", true},
		{Method{Include: []string{"hashicorp/*"}, Exclude: []string{"hashicorp/aws"}}, "hashicorp/aws", false},
	}
	for _, tt := range tests {
		t.Run(fmtList(tt.m.Include)+"-"+fmtList(tt.m.Exclude)+"-"+tt.addr, func(t *testing.T) {
			if got := tt.m.serves(tfaddr.MustParseProviderSource(tt.addr)); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadCLIConfigJSONAndSavedCredentials(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".terraform.d"), 0o755)
	os.WriteFile(filepath.Join(home, ".terraform.d", "credentials.tfrc.json"),
		[]byte(`{"credentials": {"app.terraform.io": {"token": "saved"}, "example.com": {"token": "saved too"}}}`), 0o644)
	path := filepath.Join(home, "cli.tfrc.json")
	os.WriteFile(path, []byte(`{
  "credentials": {"example.com": {"token": "from-config"}},
  "provider_installation": {
    "dev_overrides": {"hashicorp/time": "/dev/time"},
    "filesystem_mirror": {"path": "/srv/mirror", "include": ["hashicorp/*"]},
    "direct": {"exclude": ["hashicorp/*"]}
  }
}`), 0o644)
	got, err := LoadCLIConfig([]string{"TF_CLI_CONFIG_FILE=" + path}, home, home)
	if err != nil {
		t.Fatal(err)
	}
	want := &CLIConfig{
		File: path,
		Methods: []Method{
			{Kind: FilesystemMirror, Location: "/srv/mirror", Include: []string{"hashicorp/*"}},
			{Kind: Direct, Exclude: []string{"hashicorp/*"}},
		},
		DevOverrides: map[tfaddr.Provider]string{timeAddr: "/dev/time"},
		Tokens:       map[string]string{"app.terraform.io": "saved", "example.com": "from-config"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	os.WriteFile(path, []byte(`{"provider_installation": {"direct": {"exclude": 7}}}`), 0o644)
	_, err = LoadCLIConfig([]string{"TF_CLI_CONFIG_FILE=" + path}, home, home)
	if err == nil || !strings.HasPrefix(err.Error(), path+":1:") {
		t.Errorf("error %v, want one at %s:1:", err, path)
	}
}

// TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE sets what
// plugin_cache_may_break_dependency_lock_file sets, unless empty or "0",
// as in Terraform.
func TestLoadCLIConfigMayBreakFromEnvironment(t *testing.T) {
	for value, want := range map[string]bool{"": false, "0": false, "1": true, "true": true} {
		dir := t.TempDir()
		cfg, err := LoadCLIConfig([]string{"TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE=" + value}, dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.PluginCacheMayBreakLock != want {
			t.Errorf("with the variable %q: PluginCacheMayBreakLock = %v, want %v", value, cfg.PluginCacheMayBreakLock, want)
		}
	}
}
