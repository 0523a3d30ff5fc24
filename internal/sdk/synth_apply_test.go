package sdk

import (
	"bytes"
	"strings"
	"testing"
)

var tfValueType = &Type{Provider: "tether", Name: "tether_value", Func: "test.NewValue"}

// TestApplyUnderTerraform runs a program as provider::tether::apply does:
// the program builds its configuration again, finds the Apply by the id
// synth wrote and computes its result from the inputs on stdin.
func TestApplyUnderTerraform(t *testing.T) {
	build := func(st *Stack) error {
		var v Resource
		Declare(st, &v, tfValueType, "v", struct{}{})
		id := Attr[string](&v, "id")
		Apply(id, func(s string) int { return len(strings.Fields(s)) }) // line 19
		for i := 0; i < 2; i++ {
			Apply2(id, Val(i), func(s string, n int) string { return strings.Repeat(s, n+1) }) // line 21
		}
		All(id, id)
		return nil
	}
	for _, c := range []struct {
		id, stdin string
		code      int
		stdout    string
		stderr    string
	}{
		{id: "synth_apply_test.go:19", stdin: `[{"value":"a b c","type":"string"}]`, stdout: `{"value":3,"type":"number"}`},
		{id: "synth_apply_test.go:21", stdin: `[{"value":"ab","type":"string"},{"value":0,"type":"number"}]`, stdout: `{"value":"ab","type":"string"}`},
		{id: "synth_apply_test.go:21#2", stdin: `[{"value":"ab","type":"string"},{"value":1,"type":"number"}]`, stdout: `{"value":"abab","type":"string"}`},
		{id: "synth_apply_test.go:23", stdin: `[{"value":"x","type":"string"},{"value":"y","type":"string"}]`, stdout: `{"value":["x","y"],"type":["list","string"]}`},
		{id: "synth_apply_test.go:99", stdin: `[]`, code: 2, stderr: "makes no tether.Apply call synth_apply_test.go:99; it makes [synth_apply_test.go:19 synth_apply_test.go:21 synth_apply_test.go:21#2 synth_apply_test.go:23]"},
		{id: "synth_apply_test.go:19", stdin: `{}`, code: 2, stderr: "are not a JSON array"},
		{id: "synth_apply_test.go:19", stdin: `[{"value":{"a":1},"type":["object",{"a":"number"}]}]`, code: 1, stderr: "does not fit string"},
	} {
		t.Run(c.id+" "+c.stdin, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runApply(c.id, ProgramOf(build), strings.NewReader(c.stdin), &out, &errOut)
			if code != c.code || out.String() != c.stdout || !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
		})
	}
}
