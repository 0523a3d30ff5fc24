package tether

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// ApplyEnv is the environment variable that makes a Go program built with
// the SDK compute the result of one of its tether.Apply calls instead of
// running a command: the apply function sets it to the call's id, writes
// the inputs to the program's standard input as a JSON array of
// {"value", "type"} objects (go-cty's JSON with type), and reads the
// result from its standard output in the same form.
const ApplyEnv = "TETHER_APPLY"

// applyFunction is provider::tether::apply(program, id, inputs...): under
// Terraform, the result of a Go program's tether.Apply, computed by
// running the program (which `tether synth` writes beside the Terraform
// JSON) on the inputs' values. Terraform calls it only once every input
// is wholly known, and checks at apply that it returns what it returned
// at plan: the function given to tether.Apply must be free of side
// effects, as the SDK asks.
func applyFunction() function.Function {
	return function.New(&function.Spec{
		Description: "Computes the result of a Go program's tether.Apply call by running the program on the inputs' values. `tether synth` writes the program beside the Terraform JSON and calls this function where the program uses such a result.",
		Params: []function.Parameter{
			{Name: "program", Type: cty.String, Description: "Path of the program's executable, relative to the working folder."},
			{Name: "id", Type: cty.String, Description: "The call's id in the program: the base name of its source file and its line (main.go:63), with #N after the first call made at that line."},
		},
		VarParam: &function.Parameter{
			Name:             "inputs",
			Type:             cty.DynamicPseudoType,
			AllowNull:        true,
			AllowDynamicType: true,
			Description:      "The values of the Outputs given to tether.Apply (Apply2, Apply3, All), in order.",
		},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for _, a := range args[2:] {
				if !a.IsWhollyKnown() {
					// Tether's own evaluation passes unknown values
					// on; Terraform never does.
					return cty.DynamicVal, nil
				}
			}
			return runApply(args[0].AsString(), args[1].AsString(), args[2:])
		},
	})
}

// runApply runs the program at path to compute the result of its
// tether.Apply call id from the inputs.
func runApply(path, id string, inputs []cty.Value) (cty.Value, error) {
	var in bytes.Buffer
	in.WriteByte('[')
	for i, v := range inputs {
		b, err := ctyjson.Marshal(v, cty.DynamicPseudoType)
		if err != nil {
			return cty.DynamicVal, function.NewArgErrorf(i+2, "the input cannot be encoded for the program: %s", err)
		}
		if i > 0 {
			in.WriteByte(',')
		}
		in.Write(b)
	}
	in.WriteByte(']')
	// A path with no folder in it would be looked up in PATH.
	abs, err := filepath.Abs(path)
	if err != nil {
		return cty.DynamicVal, function.NewArgErrorf(0, "the program's path %q cannot be made absolute: %s", path, err)
	}
	cmd := exec.Command(abs)
	cmd.Env = append(withoutEnv(os.Environ(), "TETHER_CLOSURE"), ApplyEnv+"="+id)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = "(it wrote nothing to stderr)"
		}
		return cty.DynamicVal, fmt.Errorf("running %s to compute the result of its tether.Apply at %s failed (%s):\n%s", path, id, err, msg)
	}
	v, err := ctyjson.Unmarshal(out.Bytes(), cty.DynamicPseudoType)
	if err != nil {
		return cty.DynamicVal, fmt.Errorf("%s computed the result of its tether.Apply at %s, but its output is not a value in go-cty's JSON with type: %s", path, id, err)
	}
	return v, nil
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
