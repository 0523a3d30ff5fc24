package sdk

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/synth"
	"github.com/tetherhq/tether/internal/ui"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// Synth writes the result of tether.Apply (Apply2, Apply3, All) as a call
// of the built-in provider's function provider::tether::apply, which runs
// the program written beside the Terraform JSON with TETHER_APPLY naming
// the call: the program builds its configuration again, finds the call by
// its id (the base name of its file and its line, main.go:63, with #2,
// #3... for later calls made at that line) and runs the function given to
// it on the inputs Terraform passes. Terraform calls it once the inputs
// are known, as Tether does, and checks that apply gets what plan got.

// applyFunc is a tether.Apply's function on wholly known, unmarked
// values.
type applyFunc func([]cty.Value) (cty.Value, hcl.Diagnostics)

// addApply registers an Apply's function under a new id, and the program
// among the files synth writes. It returns "" when the program's function
// has returned: such a call cannot be found again by running it.
func (st *Stack) addApply(pos hcl.Range, f applyFunc) string {
	exe, exeErr := os.Executable()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.returned {
		return ""
	}
	if st.applies == nil {
		st.applies = map[string]applyFunc{}
	}
	id := filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Start.Line)
	if _, taken := st.applies[id]; taken {
		for n := 2; ; n++ {
			if _, taken := st.applies[id+"#"+strconv.Itoa(n)]; !taken {
				id += "#" + strconv.Itoa(n)
				break
			}
		}
	}
	st.applies[id] = f
	if exeErr == nil {
		if st.files == nil {
			st.files = map[string]string{}
		}
		st.files[programFile] = exe
	}
	return id
}

// terraformApply is the Terraform form of the result l of an Apply at pos
// over ins: a call of provider::tether::apply, or, when no input comes
// from a resource, the value itself.
func terraformApply(l *lazy, pos hcl.Range, what string, ins []*lazy, f applyFunc) func() (string, error) {
	id := ""
	if l.stack != nil {
		id = l.stack.addApply(pos, f)
	}
	return func() (string, error) {
		args := []string{`"${path.root}/` + programFile + `"`, strconv.Quote(id)}
		for _, in := range ins {
			expr, err := in.terraform()
			if err != nil {
				return "", err
			}
			args = append(args, expr)
		}
		switch {
		case l.stack == nil:
			// Its inputs are constants: so is the result.
			v, diags := l.eval(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }))
			if diags.HasErrors() {
				return "", fmt.Errorf("%s", diags[0].Detail)
			}
			return nativeKnown(v, l.desc)
		case id == "":
			return "", fmt.Errorf("%s was made after the function given to tether.Main returned, so the program cannot compute it again under Terraform", l.desc)
		}
		return "provider::tether::apply(" + strings.Join(args, ", ") + ")", nil
	}
}

// nativeKnown writes a known value in Terraform's native syntax.
func nativeKnown(v cty.Value, desc string) (string, error) {
	if !v.IsWhollyKnown() {
		return "", fmt.Errorf("%s is not known while the program runs", desc)
	}
	return synth.Native(v), nil
}

// runApply runs the program as provider::tether::apply asks: it builds
// the configuration again, nothing planned or applied, and writes the
// result of the Apply call id on the inputs read from stdin. It returns
// the exit code.
func runApply(id string, build Program, stdin io.Reader, stdout, stderr io.Writer) int {
	os.Unsetenv(tetherprovider.ApplyEnv)
	st := newStack(rebuildInput())
	failed := st.build(build)
	_, diags := st.seal()
	diags = append(diags, failed...)
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "tether: the program could not build its configuration again to compute its tether.Apply at %s:\n", id)
		ui.WriteDiagnostics(stderr, diags, sourceFiles(), false)
		return 2
	}
	f := st.applies[id]
	if f == nil {
		ids := make([]string, 0, len(st.applies))
		for k := range st.applies {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		fmt.Fprintf(stderr, "tether: this program makes no tether.Apply call %s; it makes %v. Was the Terraform JSON synthesised from another version of the program? The program must make its Apply calls in the same order from the same lines on every run.\n", id, ids)
		return 2
	}
	var raw []json.RawMessage
	if err := json.NewDecoder(stdin).Decode(&raw); err != nil {
		fmt.Fprintf(stderr, "tether: the inputs of the tether.Apply at %s on stdin are not a JSON array: %v\n", id, err)
		return 2
	}
	args := make([]cty.Value, len(raw))
	for i, r := range raw {
		v, err := ctyjson.Unmarshal(r, cty.DynamicPseudoType)
		if err != nil {
			fmt.Fprintf(stderr, "tether: input %d of the tether.Apply at %s is not a value in go-cty's JSON with type: %v\n", i+1, id, err)
			return 2
		}
		args[i] = v
	}
	v, diags := f(args)
	if diags.HasErrors() {
		ui.WriteDiagnostics(stderr, diags, sourceFiles(), false)
		return 1
	}
	out, err := ctyjson.Marshal(v, cty.DynamicPseudoType)
	if err != nil {
		fmt.Fprintf(stderr, "tether: the result of the tether.Apply at %s cannot be written as JSON: %v\n", id, err)
		return 1
	}
	stdout.Write(out)
	return 0
}
