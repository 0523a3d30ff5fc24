package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/codegen"
	"github.com/tetherhq/tether/internal/config"
)

// RequirementsFile is where a Go program declares the providers and
// modules it generates bindings for, beside its go.mod: the part of
// CDKTF's cdktf.json that `cdktf get` reads.
const RequirementsFile = "tether.json"

// requirements is the content of tether.json:
//
//	{
//	  "providers": ["hashicorp/time@~> 0.12", "tetherhq/tether"],
//	  "modules": [{"name": "net", "source": "./modules/net"},
//	              {"name": "vpc", "source": "example/vpc/aws", "version": "~> 1.0"}],
//	  "output": "gen"
//	}
//
// A provider is SOURCE[@CONSTRAINT], as cdktf.json's terraformProviders;
// its bindings go to OUTPUT/TYPE (package TYPE, builtin for
// tetherhq/tether). A module's go to OUTPUT/NAME (package NAME).
type requirements struct {
	Providers []string            `json:"providers"`
	Modules   []moduleRequirement `json:"modules"`
	// Output is the folder of the generated packages, "gen" by default
	// (a folder starting with a dot would be ignored by the go command).
	Output string `json:"output"`
}

type moduleRequirement struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Version string `json:"version"`
}

// readRequirements reads tether.json in the working folder; ok is false
// when there is none.
func readRequirements() (*requirements, bool, error) {
	data, err := os.ReadFile(RequirementsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r requirements
	if err := dec.Decode(&r); err != nil {
		return nil, true, fmt.Errorf("%s: %v", RequirementsFile, err)
	}
	if r.Output == "" {
		r.Output = "gen"
	}
	seen := map[string]string{}
	claim := func(pkg, what string) error {
		if other, ok := seen[pkg]; ok {
			return fmt.Errorf("%s: %s and %s would both generate package %s", RequirementsFile, other, what, pkg)
		}
		seen[pkg] = what
		return nil
	}
	for _, p := range r.Providers {
		src, _, err := parseProviderRequirement(p)
		if err != nil {
			return nil, true, err
		}
		if err := claim(providerPackage(src), fmt.Sprintf("provider %q", p)); err != nil {
			return nil, true, err
		}
	}
	for i, m := range r.Modules {
		if m.Name == "" || m.Source == "" {
			return nil, true, fmt.Errorf("%s: module %d needs a name and a source", RequirementsFile, i+1)
		}
		if codegen.PackageName(m.Name) != m.Name {
			return nil, true, fmt.Errorf("%s: the module name %q cannot be a package name; try %q", RequirementsFile, m.Name, codegen.PackageName(m.Name))
		}
		if err := claim(m.Name, fmt.Sprintf("module %q", m.Name)); err != nil {
			return nil, true, err
		}
	}
	return &r, true, nil
}

// parseProviderRequirement reads SOURCE[@CONSTRAINT].
func parseProviderRequirement(s string) (tfaddr.Provider, string, error) {
	source, constraint, _ := strings.Cut(s, "@")
	src, err := tfaddr.ParseProviderSource(strings.TrimSpace(source))
	if err != nil {
		return tfaddr.Provider{}, "", fmt.Errorf("%s: the provider %q is not SOURCE[@CONSTRAINT]: %v", RequirementsFile, s, err)
	}
	return src, strings.TrimSpace(constraint), nil
}

// providerPackage is the package of a provider's bindings.
func providerPackage(src tfaddr.Provider) string {
	if src == config.BuiltinSource {
		return "builtin"
	}
	return codegen.ProviderPackage(src.Type)
}

// genRequirements regenerates every binding tether.json declares:
// providers are installed as init installs them (recorded in the same
// .terraform.lock.hcl, whose versions win), modules fetched as gen
// --module fetches them.
func (e *env) genRequirements(ctx context.Context, r *requirements) int {
	pool, err := e.newPool(ctx, e.stderr)
	if err != nil {
		return e.errorf("cannot read the CLI configuration: %v", err)
	}
	defer pool.close()
	for _, p := range r.Providers {
		src, constraint, _ := parseProviderRequirement(p)
		pkg := providerPackage(src)
		out := filepath.Join(r.Output, pkg)
		opts := codegen.Options{Provider: src.Type, Source: src.String(), Package: pkg, Command: "tether gen (" + RequirementsFile + ")"}
		req := config.ProviderRequirement{Source: src}
		if constraint != "" {
			req.Constraints = []string{constraint}
		}
		schema, err := pool.schema(req)
		if err != nil {
			return e.errorf("provider %s: %v", src.ForDisplay(), err)
		}
		opts.Version = pool.entry(src).pkg.Version
		sum, err := codegen.WriteDir(out, schema, opts)
		if err != nil {
			return e.errorf("%v", err)
		}
		version := ""
		if opts.Version != "" {
			version = " " + opts.Version
		}
		fmt.Fprintf(e.stdout, "Generated bindings for provider %s%s: %s and %s, package %s under %s.\n",
			src.ForDisplay(), version, count(sum.Resources, "resource type"), count(sum.DataSources, "data source"), pkg, out)
	}
	for _, m := range r.Modules {
		if code := e.genModule(ctx, m.Source, m.Version, filepath.Join(r.Output, m.Name), m.Name); code != 0 {
			return code
		}
	}
	return 0
}
