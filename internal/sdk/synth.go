package sdk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/synth"
)

// This file writes the program's configuration in Terraform's language,
// for `tether synth` (config.Node.Terraform): a template's known parts
// are literals, an attribute of a resource is a reference by its whole
// address, and a value Terraform cannot compute (a Go function's result,
// a secret the program holds, a reference Tether resolves itself) is an
// error naming it.

// terraformJSON writes a template in Terraform's JSON syntax.
func (t *tmpl) terraformJSON() (any, error) {
	switch t.kind {
	case tKnown:
		return synth.JSON(t.val, true), nil
	case tTuple:
		out := make([]any, len(t.elems))
		for i, e := range t.elems {
			v, err := e.terraformJSON()
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case tObject:
		out := make(map[string]any, len(t.names))
		for i, a := range t.attrs {
			v, err := a.terraformJSON()
			if err != nil {
				return nil, err
			}
			out[synth.Escape(t.names[i])] = v
		}
		return out, nil
	case tConcat:
		return t.terraformTemplate()
	}
	expr, err := t.terraformNative()
	if err != nil {
		return nil, err
	}
	return "${" + expr + "}", nil
}

// terraformTemplate writes a string with tokens as a template.
func (t *tmpl) terraformTemplate() (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.lazy == nil {
			b.WriteString(synth.Escape(p.lit))
			continue
		}
		expr, err := p.lazy.terraform()
		if err != nil {
			return "", err
		}
		b.WriteString("${" + expr + "}")
	}
	return b.String(), nil
}

// terraformNative writes a template as an expression of Terraform's
// native syntax.
func (t *tmpl) terraformNative() (string, error) {
	switch t.kind {
	case tKnown:
		return synth.Native(t.val), nil
	case tLazy:
		return t.lazy.terraform()
	case tConcat:
		s, err := t.terraformTemplate()
		if err != nil {
			return "", err
		}
		// The template's text in quotes: only quotes, backslashes and
		// line ends need escaping beyond what the template has.
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
		return `"` + r.Replace(s) + `"`, nil
	case tTuple:
		parts := make([]string, len(t.elems))
		for i, e := range t.elems {
			s, err := e.terraformNative()
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case tObject:
		parts := make([]string, len(t.names))
		for i, a := range t.attrs {
			s, err := a.terraformNative()
			if err != nil {
				return "", err
			}
			parts[i] = synth.Native(cty.StringVal(t.names[i])) + " = " + s
		}
		return "{ " + strings.Join(parts, ", ") + " }", nil
	}
	return "", fmt.Errorf("a value of an unknown kind")
}

// terraform is a lazy value's expression in Terraform's native syntax.
func (l *lazy) terraform() (string, error) {
	switch {
	case l.err != nil:
		return "", fmt.Errorf("%s", l.err.Detail)
	case l.tf != nil:
		return l.tf()
	case l.ref != nil:
		return "", fmt.Errorf("%s is a reference, which Tether resolves itself right before the provider call that needs it; Terraform cannot resolve it", l.ref.Description())
	case strings.HasPrefix(l.desc, "the secret"):
		return "", fmt.Errorf("%s is a secret the program holds; writing it into Terraform JSON would leak it. Give it to Terraform as a sensitive variable instead", l.desc)
	}
	return "", fmt.Errorf("%s is computed by Go code while Tether plans or applies, which Terraform cannot run; compute it from Terraform's functions in the program's resources, or keep this value out of what is synthesised", l.desc)
}

// terraformNode gives a resource's or data source's node its Terraform
// form: its arguments, depends_on and lifecycle.
func terraformNode(n *config.Node, what string, tm *tmpl) {
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		body, err := tm.terraformJSON()
		if err != nil {
			return nil, hcl.Diagnostics{diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The arguments of %s (%s) cannot be written in Terraform's language: %v.", n.Addr, what, err)}
		}
		obj, _ := body.(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		if len(n.DependsOn) > 0 {
			var deps []any
			for _, d := range n.DependsOn {
				deps = append(deps, d.Addr)
			}
			obj["depends_on"] = deps
		}
		life, lc := map[string]any{}, n.Lifecycle
		if lc.CreateBeforeDestroy {
			life["create_before_destroy"] = true
		}
		if lc.PreventDestroy {
			life["prevent_destroy"] = true
		}
		if len(life) > 0 {
			obj["lifecycle"] = life
		}
		return obj, nil
	})
}

// terraformModule gives a module call's node its Terraform form: a module
// block with the same source and version, the folder of a local source
// as an absolute path (synth writes it relative to where it writes), and
// the arguments tm as Terraform expressions.
func terraformModule(n *config.Node, src *ModuleSource, version, dir string, tm *tmpl) {
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		body := map[string]any{"source": src.Source}
		if version != "" {
			body["version"] = version
		}
		if strings.HasPrefix(src.Source, "./") || strings.HasPrefix(src.Source, "../") {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, hcl.Diagnostics{diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The folder of the module %q cannot be found: %v.", src.Source, err)}
			}
			body["source"] = abs
		}
		args, err := tm.terraformJSON()
		if err != nil {
			return nil, hcl.Diagnostics{diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The arguments of %s cannot be written in Terraform's language: %v.", n.Addr, err)}
		}
		obj, _ := args.(map[string]any)
		for k, v := range obj {
			if _, meta := body[k]; meta {
				continue
			}
			body[k] = v
		}
		if len(n.DependsOn) > 0 {
			var deps []any
			for _, d := range n.DependsOn {
				deps = append(deps, d.Addr)
			}
			body["depends_on"] = deps
		}
		return body, nil
	})
}

// terraformOutput gives an export's node its Terraform form.
func terraformOutput(n *config.Node, t *tmpl) {
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		v, err := t.terraformJSON()
		if err != nil {
			return nil, hcl.Diagnostics{diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The value exported as %q cannot be written in Terraform's language: %v.", n.Name, err)}
		}
		body := map[string]any{"value": v}
		if n.Sensitive {
			body["sensitive"] = true
		}
		return body, nil
	})
}

// terraformAttr is the expression of an attribute of a resource or data
// source.
func terraformAttr(addr, name string) func() (string, error) {
	return func() (string, error) { return addr + "." + name, nil }
}

// terraformEnv is the expression of a captured property in a closure's
// environment variable: a string as it is, anything else as JSON (see
// encodeEnv).
func terraformEnv(c *construct, name string) func() (string, error) {
	return func() (string, error) {
		ref := c.addr + "." + name
		if c.schema != nil && c.schema.Block != nil {
			if a, ok := c.schema.Block.Attributes[name]; ok && a.Type == cty.String {
				return ref, nil
			}
		}
		return "jsonencode(" + ref + ")", nil
	}
}

// terraformTests adds a tester's test closures, the template tm of test
// blocks by name, to its node's Terraform form.
func terraformTests(n *config.Node, tm *tmpl) {
	own := n.Terraform
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		body, diags := own.TerraformJSON()
		obj, _ := body.(map[string]any)
		if diags.HasErrors() || obj == nil {
			return body, diags
		}
		added, err := tm.terraformJSON()
		if err != nil {
			return nil, append(diags, diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The tests of %s cannot be written in Terraform's language: %v.", n.Addr, err))
		}
		tests, _ := obj["test"].(map[string]any)
		if tests == nil {
			tests = map[string]any{}
		}
		for k, v := range added.(map[string]any) {
			tests[k] = v
		}
		obj["test"] = tests
		return obj, diags
	})
}

// programFile is the name of the program's executable beside the
// Terraform JSON synth writes.
const programFile = "program"

// terraformProgram makes the copy of the program that runs the closures
// a copy of the executable written beside the Terraform JSON: under
// Terraform, the provider running it is terraform-provider-tether, not
// the program.
func (st *Stack) terraformProgram(c *construct) {
	exe, err := os.Executable()
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.node(c.addr)
	if n == nil {
		return
	}
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		if err != nil {
			return nil, hcl.Diagnostics{diagAt(n.DeclRange, "Cannot synthesise "+n.Addr, "The program's closures run from a copy of its executable, which cannot be found: %v.", err)}
		}
		return map[string]any{
			"source":    "${path.module}/" + programFile,
			"lifecycle": map[string]any{"create_before_destroy": true},
		}, nil
	})
	if err == nil {
		if st.files == nil {
			st.files = map[string]string{}
		}
		st.files[programFile] = exe
	}
}
