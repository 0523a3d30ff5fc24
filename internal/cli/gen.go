package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	goversion "github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/codegen"
	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// BuiltinSource is the source address of the built-in provider.
const BuiltinSource = "registry.terraform.io/tetherhq/tether"

// gen writes Go bindings for a provider's schema, taken from the built-in
// provider, a `terraform providers schema -json` file or a provider plugin
// binary.
func (e *env) gen(ctx context.Context, args []string) int {
	fs := e.flags("gen", nil)
	from := fs.String("from", "", "builtin, a `terraform providers schema -json` file, or a provider binary")
	out := fs.String("out", "", "folder to write the package to (default: the package name)")
	pkg := fs.String("package", "", "package name (default: the provider's name; builtin for the built-in provider)")
	name := fs.String("provider", "", "the provider's local name or source address (hashicorp/time); with a schema file holding several, which one")
	split := fs.String("split", "auto", "auto, none or groups: one package per group of types sharing a word")
	source := fs.String("source", "", "the provider's source address, such as hashicorp/time (default: read from the binary's installed path, else hashicorp/NAME)")
	version := fs.String("version", "", "the provider's version (default: read from the binary's name); with --module, the module's version constraint")
	module := fs.String("module", "", "a Terraform module's source: a local folder, a module registry address, git::URL or an archive URL")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) > 0 {
		return e.errorf("gen takes no arguments, but was given %q; name the source with --from", strings.Join(pos, " "))
	}
	if *module != "" {
		if *from != "" || *name != "" || *source != "" || *split != "auto" {
			return e.errorf("--module generates bindings for a module and takes only --version, --out and --package; --from, --provider, --source and --split are for a provider's")
		}
		return e.genModule(ctx, *module, *version, *out, *pkg)
	}
	if *from == "" {
		r, ok, err := readRequirements()
		if err != nil {
			return e.errorf("%v", err)
		}
		if !ok {
			return e.errorf("gen needs --from (builtin, a file written by `terraform providers schema -json`, or a provider plugin binary), --module SOURCE, or a %s declaring the providers and modules to generate bindings for", RequirementsFile)
		}
		if len(args) > 0 {
			return e.errorf("gen with no --from or --module regenerates what %s declares and takes no flags, but was given %q", RequirementsFile, strings.Join(args, " "))
		}
		return e.genRequirements(ctx, r)
	}
	opts := codegen.Options{Package: *pkg}
	switch *split {
	case "auto":
		opts.Split = codegen.SplitAuto
	case "none":
		opts.Split = codegen.SplitNone
	case "groups":
		opts.Split = codegen.SplitGroups
	default:
		return e.errorf("--split takes auto, none or groups, not %q", *split)
	}
	schema, err := e.genSchema(ctx, *from, *name, &opts)
	if err != nil {
		return e.errorf("%v", err)
	}
	if *source != "" {
		src, err := tfaddr.ParseProviderSource(*source)
		if err != nil {
			return e.errorf("--source %q is not a provider source address: %v", *source, err)
		}
		opts.Source = src.String()
	}
	if *version != "" {
		if _, err := goversion.NewVersion(*version); err != nil {
			return e.errorf("--version %q is not a version: %v", *version, err)
		}
		opts.Version = *version
	}
	// The command is recorded in the bindings; it names the source by its
	// base name so that regenerating elsewhere changes nothing.
	cmd := []string{"tether gen --from " + filepath.Base(*from)}
	if *from == "builtin" {
		cmd[0] = "tether gen --from builtin"
	}
	if *pkg != "" {
		cmd = append(cmd, "--package "+*pkg)
	}
	if *name != "" {
		cmd = append(cmd, "--provider "+*name)
	}
	if *split != "auto" {
		cmd = append(cmd, "--split "+*split)
	}
	if *source != "" {
		cmd = append(cmd, "--source "+*source)
	}
	if *version != "" {
		cmd = append(cmd, "--version "+*version)
	}
	opts.Command = strings.Join(cmd, " ")
	dir := *out
	if dir == "" {
		dir = opts.Package
		if dir == "" {
			dir = codegen.ProviderPackage(opts.Provider)
		}
	}
	start := time.Now()
	sum, err := codegen.WriteDir(dir, schema, opts)
	if err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintf(e.stdout, "Generated bindings for %s and %s of provider %q: %s in %s under %s (%.1fs).\n",
		count(sum.Resources, "resource type"), count(sum.DataSources, "data source"), opts.Provider,
		count(sum.Files, "file"), count(sum.Packages, "package"), dir, time.Since(start).Seconds())
	return 0
}

// genSchema reads the schema named by from and fills in the provider's
// name, source and default package in opts.
func (e *env) genSchema(ctx context.Context, from, name string, opts *codegen.Options) (*provider.Schema, error) {
	if from == "builtin" {
		opts.Provider, opts.Source = "tether", BuiltinSource
		if opts.Package == "" {
			opts.Package = "builtin"
		}
		s, diags := tetherprovider.New().GetSchema()
		if diags.HasErrors() {
			return nil, diags
		}
		return s, nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return nil, fmt.Errorf("cannot read --from %s: %v", from, err)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		s, local, source, err := codegen.FromJSON(data, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", from, err)
		}
		opts.Provider, opts.Source = local, source
		if name != "" && !strings.Contains(name, "/") {
			opts.Provider = name
		}
		return s, nil
	}
	// Anything else is taken for a provider plugin, named like
	// terraform-provider-aws_v5.0.0. --provider may give its source
	// address rather than its local name.
	local := name
	var named tfaddr.Provider
	if strings.Contains(name, "/") {
		src, err := tfaddr.ParseProviderSource(name)
		if err != nil {
			return nil, fmt.Errorf("--provider %q is neither a local name nor a provider source address: %v", name, err)
		}
		named, local = src, src.Type
	}
	if local == "" {
		base := strings.TrimPrefix(filepath.Base(from), "terraform-provider-")
		local, _, _ = strings.Cut(base, "_")
		local = strings.TrimSuffix(local, ".exe")
	}
	path, err := filepath.Abs(from)
	if err != nil {
		return nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	p, err := plugin.Start(startCtx, path)
	if err != nil {
		return nil, fmt.Errorf("cannot start the provider plugin %s: %v", from, err)
	}
	defer p.Close()
	s, diags := p.GetSchema()
	if diags.HasErrors() {
		return nil, fmt.Errorf("provider plugin %s: %v", from, diags)
	}
	opts.Provider = local
	opts.Source, opts.Version = binaryOrigin(path, local)
	if !named.IsZero() {
		opts.Source = named.String()
	}
	return s, nil
}

// binaryOrigin reads a provider binary's source address and version from
// where it is installed and what it is called: Terraform's layouts put it
// at HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION.
// What the path does not say is the local name's implied source
// (hashicorp/NAME) and an unknown version.
func binaryOrigin(path, local string) (source, version string) {
	base := strings.TrimSuffix(filepath.Base(path), ".exe")
	if _, after, ok := strings.Cut(base, "_v"); ok {
		v, _, _ := strings.Cut(after, "_")
		if _, err := goversion.NewVersion(v); err == nil {
			version = v
		}
	}
	parts := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	if n := len(parts); n >= 5 && parts[n-3] == local {
		if src, err := tfaddr.ParseProviderSource(strings.Join(parts[n-5:n-2], "/")); err == nil {
			if v, err := goversion.NewVersion(parts[n-2]); err == nil {
				return src.String(), v.Original()
			}
		}
	}
	if src, err := tfaddr.ParseProviderSource("hashicorp/" + local); err == nil {
		source = src.String()
	}
	return source, version
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
