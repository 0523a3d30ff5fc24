package codegen

import (
	"fmt"
	"go/format"
	"strings"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/hclconfig"
)

// ModuleOptions control the generation of a module's bindings.
type ModuleOptions struct {
	// Package is the package name; the module's Go name (Net, NewNet,
	// NetArgs) is made from it.
	Package string
	// Source is the module's source address as a module block writes it,
	// recorded in the bindings: the program calls the module from there.
	// A local folder is relative to the program's folder.
	Source string
	// Version is the version constraint the bindings call the module
	// with; empty for a source that has no versions.
	Version string
	// Installed is the version of a registry module the bindings were
	// generated from, recorded so that a plan can tell when the module
	// installed for the program is another one.
	Installed string
	// Command is how the bindings were generated, for the package
	// documentation; it must not vary between runs.
	Command string
}

// GenerateModule produces typed Go bindings for a module's interface: a
// doc.go and a module.go holding the call's type, its args struct (one
// field per variable, required ones first, with the rules of provider
// bindings) and a getter per output returning a typed Output.
//
// An output whose type ReadInterface left open is an Output[any]; a tuple
// whose elements share a type is a slice of it.
func GenerateModule(iface *hclconfig.Interface, opts ModuleOptions, emit func(File) error) error {
	if iface == nil {
		return fmt.Errorf("no module interface")
	}
	if opts.Package == "" || packageName(opts.Package) != opts.Package {
		return fmt.Errorf("%q cannot be a package name; try %q", opts.Package, packageName(opts.Package))
	}
	for _, f := range []struct {
		path string
		src  []byte
	}{{"doc.go", moduleDoc(opts)}, {"module.go", moduleFile(iface, opts)}} {
		formatted, err := format.Source(f.src)
		if err != nil {
			return fmt.Errorf("generated %s does not parse: %v", f.path, err)
		}
		if err := emit(File{Path: f.path, Content: formatted}); err != nil {
			return err
		}
	}
	return nil
}

func moduleDoc(opts ModuleOptions) []byte {
	var w writer
	w.p(header)
	what := fmt.Sprintf("the Terraform module %s", opts.Source)
	if opts.Version != "" {
		what += fmt.Sprintf(" (version %s", opts.Version)
		if opts.Installed != "" && opts.Installed != opts.Version {
			what += fmt.Sprintf(", generated from %s", opts.Installed)
		}
		what += ")"
	}
	w.comment("", wrap(fmt.Sprintf("Package %s holds typed Go bindings for %s, for programs written with the Tether Go SDK (%s).", opts.Package, what, SDKImport)))
	w.p("//\n")
	w.comment("", wrap("New"+goName(opts.Package)+" calls the module as a module block would: its resources are planned and applied with the program's, at addresses under module.ID; its variables are the fields of the args struct and its outputs the methods of what it returns."))
	if opts.Command != "" {
		w.p("//\n// Generated with:\n//\n//\t%s\n", opts.Command)
	}
	w.p("package %s\n", opts.Package)
	return w.Bytes()
}

func moduleFile(iface *hclconfig.Interface, opts ModuleOptions) []byte {
	var w writer
	x := goName(opts.Package)
	ns := newNamespace(x, "New"+x, x+"Args")
	tn := &typeNamer{ns: ns}
	w.p(header)
	w.p("package %s\n\nimport %q\n\n", opts.Package, SDKImport)

	w.comment("", wrap(fmt.Sprintf("%s is a call of the module %s, made with New%s. It is Dependable: tether.DependsOn(it) waits for everything in the module.", x, opts.Source, x)))
	w.p("type %s struct {\n\ttether.ModuleCall\n}\n\n", x)

	fields := make([]*field, 0, len(iface.Variables))
	vars := newNamespace()
	for _, v := range iface.Variables {
		f := &field{schemaName: v.Name, goName: vars.claim(goName(v.Name)), sensitive: v.Sensitive}
		f.required, f.optional = v.Required(), !v.Required()
		f.goType, f.argType = tn.goTypes(v.Type, x+f.goName, f.optional)
		f.doc = variableDoc(v)
		fields = append(fields, f)
	}
	w.p("// %sArgs set the module's variables. Required fields come first; an\n", x)
	w.p("// optional field left nil (a Number left zero) is not set, so the\n")
	w.p("// variable takes its default, and any value given is set, zero included.\n")
	w.p("// A field takes lazy values too (an Output's String(), tether.Set); the\n")
	w.p("// module's validation rules check the values at plan.\n")
	(&generator{}).structBody(&w, x+"Args", fields)

	w.p("\n// New%s calls the module under the given id, unique within scope: its\n", x)
	w.p("// resources are at module.ID.<address>. Call it in a loop, with distinct\n")
	w.p("// ids, for several instances. A missing required variable, a value of\n")
	w.p("// the wrong type and a failed validation are errors at the caller's line.\n")
	w.p("func New%s(scope tether.Scope, id string, args %sArgs, opts ...tether.ModuleOption) *%s {\n", x, x, x)
	w.p("\tm := &%s{}\n\ttether.CallModule(scope, &m.ModuleCall, moduleSource, id, args, opts...)\n\treturn m\n}\n\n", x)
	w.p("var moduleSource = &tether.ModuleSource{Source: %q, ", opts.Source)
	if opts.Version != "" {
		w.p("Version: %q, ", opts.Version)
	}
	if opts.Installed != "" {
		w.p("Generated: %q, ", opts.Installed)
	}
	w.p("Func: %q}\n", opts.Package+".New"+x)

	getters := newNamespace("ModuleCall")
	for _, o := range iface.Outputs {
		name := getters.claim(goName(o.Name))
		t := outputType(o.Type)
		goType, _ := tn.goTypes(t, x+name, false)
		w.p("\n")
		w.comment("", wrap(strings.TrimSpace(fmt.Sprintf("%s returns the output %s. %s", name, o.Name, outputDoc(o, t)))))
		w.p("func (m *%s) %s() tether.Output[%s] {\n\treturn tether.Attr[%s](m, %q)\n}\n", x, name, goType, goType, o.Name)
	}
	(&generator{}).pending(&w, tn)
	return w.Bytes()
}

// outputType is the type an output's getter reads: a tuple whose elements
// share a type is read as a list of it.
func outputType(t cty.Type) cty.Type {
	if !t.IsTupleType() || len(t.TupleElementTypes()) == 0 {
		return t
	}
	if u, _ := convert.UnifyUnsafe(t.TupleElementTypes()); u != cty.NilType && u != cty.DynamicPseudoType {
		return cty.List(u)
	}
	return t
}

// variableDoc is a variable's description, then its type when the Go type
// loses it, then its default.
func variableDoc(v hclconfig.InterfaceVariable) string {
	doc := strings.TrimSpace(v.Description)
	if doc != "" && !strings.HasSuffix(doc, ".") {
		doc += "."
	}
	var notes []string
	if v.Type.IsSetType() || v.Type.IsTupleType() || v.Type == cty.DynamicPseudoType {
		notes = append(notes, "Type "+typeexpr.TypeString(v.Type)+".")
	}
	if !v.Required() {
		switch {
		case v.Sensitive:
			// The default of a sensitive variable is not repeated.
		case v.Default.IsNull():
			notes = append(notes, "Default: null.")
		default:
			text := strings.TrimSpace(string(hclwrite.TokensForValue(v.Default).Bytes()))
			if len(text) <= 60 && !strings.Contains(text, "\n") {
				notes = append(notes, "Default: "+text+".")
			}
		}
	}
	if !v.Nullable {
		notes = append(notes, "Not nullable.")
	}
	return strings.TrimSpace(doc + " " + strings.Join(notes, " "))
}

func outputDoc(o hclconfig.InterfaceOutput, t cty.Type) string {
	doc := strings.TrimSpace(o.Description)
	if doc != "" && !strings.HasSuffix(doc, ".") {
		doc += "."
	}
	if o.Sensitive {
		doc += " Sensitive: shown as (sensitive value)."
	}
	if t == cty.DynamicPseudoType {
		doc += " Its type is not known before the module is planned (it depends on how many instances a count or for_each makes, or on values), so it is read as any."
	}
	return strings.TrimSpace(doc)
}

// wrap breaks text into lines of at most 72 columns where it has spaces,
// keeping its own line breaks.
func wrap(text string) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > 72 {
				out = append(out, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
