package tether_test

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

// TestOptionalZeroValuesAreSet: an optional field set to its zero value
// (false, 0) reaches the provider as that value, over the provider's
// default; one left unset stays null. A function with HTTP false is
// started without waiting for it to listen.
func TestOptionalZeroValuesAreSet(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		worker := builtin.NewFunction(s, "worker", builtin.FunctionArgs{
			Command: []string{"sleep", "300"},
			HTTP:    tether.Bool(false),
		})
		builtin.NewValue(s, "zero", builtin.ValueArgs{Input: "z", DelayMs: tether.Int(0)})
		builtin.NewValue(s, "unset", builtin.ValueArgs{Input: "u"})
		s.Export("http", worker.HTTP())
		return nil
	}
	plan := p.must(2, build, "plan", "--detailed-exitcode")
	for _, want := range []string{
		`(?m)^      \+ http     = false$`,
		`(?m)^      \+ delay_ms = 0\n      \+ id       = \(known after apply\)\n      \+ input    = "z"$`,
	} {
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}
	_, unset, _ := strings.Cut(plan, `resource "tether_value" "unset"`)
	unset, _, _ = strings.Cut(unset, "}")
	if strings.Contains(unset, "delay_ms") {
		t.Errorf("an unset delay_ms is in the plan:\n%s", plan)
	}
	t.Cleanup(func() { p.must(0, build, "destroy", "--yes") })
	p.must(0, build, "up", "--yes")
	if out := p.outputs(build); out["http"] != false {
		t.Errorf("outputs = %v", out)
	}
	p.must(0, build, "plan", "--detailed-exitcode")
}

// TestOptionalEmptyStringIsSet: an optional string set to "" reaches the
// provider, which here refuses it, rather than being dropped. The
// provider's message names the Go field the program set, at its line.
func TestOptionalEmptyStringIsSet(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		builtin.NewFunction(s, "worker", builtin.FunctionArgs{
			Command: []string{"sleep", "300"},
			HTTP:    tether.Bool(false),
			Dir:     tether.String(""), // dir-field
		})
		return nil
	}
	_, _, stderr := p.run(build, "plan")
	at := fmt.Sprintf("Error: optional_test.go:%d:4: tether_function.worker.Dir: Invalid attribute value", lineIn(t, optionalFile, "dir-field"))
	if !strings.Contains(stderr, at) || !strings.Contains(oneLine(stderr), "The working directory must not be empty") {
		t.Errorf("stderr lacks %q:\n%s", at, stderr)
	}
}

// TestNumberMistakes: a required number left nil or at the zero Number,
// and a NaN, are errors at the program's line, as a nil required field is.
func TestNumberMistakes(t *testing.T) {
	for _, c := range []struct {
		name   string
		marker string
		args   builtin.RandomArgs
		want   []string
	}{
		{"required unset", "required-number-unset", builtin.RandomArgs{}, []string{"Missing required field", "needs Length", "but it is nil"}},
		{"required zero Number", "required-number-unset", builtin.RandomArgs{Length: tether.Number{}}, []string{"Missing required field", "needs Length", "but it is the zero Number"}},
		{"NaN", "nan", builtin.RandomArgs{Length: tether.Float(math.NaN())}, []string{"Invalid number", "was given an invalid number at length: NaN; Terraform numbers cannot be NaN or infinite."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProgram(t)
			build := func(s *tether.Stack) error {
				switch c.marker {
				case "nan":
					builtin.NewRandom(s, "r", c.args) // nan
				default:
					builtin.NewRandom(s, "r", c.args) // required-number-unset
				}
				return nil
			}
			code, _, stderr := p.run(build, "plan")
			at := fmt.Sprintf("Error: optional_test.go:%d:", lineIn(t, optionalFile, c.marker))
			if code != 1 || !strings.Contains(stderr, at) {
				t.Errorf("exit %d, want 1 and %q:\n%s", code, at, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(oneLine(stderr), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

var optionalFile, _ = filepath.Abs("optional_test.go")

// TestNumberGetterIntoNumberField: a getter's Output[tether.Number] goes
// straight into another resource's number field (no tether.Set): the
// second random waits for the first and has its length; a required
// NumberInput left nil, or holding the zero Number, is the usual error.
func TestNumberGetterIntoNumberField(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		a := builtin.NewRandom(s, "a", builtin.RandomArgs{Length: tether.Int(7)})
		b := builtin.NewRandom(s, "b", builtin.RandomArgs{Length: a.Length()})
		doubled := tether.Apply(a.Length(), func(n tether.Number) tether.Number {
			i, _ := n.Int64()
			return tether.Int(2 * i)
		})
		c := builtin.NewRandom(s, "c", builtin.RandomArgs{Length: doubled})
		s.Export("b", b.Result())
		s.Export("c", c.Result())
		return nil
	}
	t.Cleanup(func() { p.must(0, build, "destroy", "--yes") })
	p.must(0, build, "up", "--yes")
	out := p.outputs(build)
	if b, _ := out["b"].(string); len(b) != 7 {
		t.Errorf("b = %q, want 7 characters", b)
	}
	if c, _ := out["c"].(string); len(c) != 14 {
		t.Errorf("c = %q, want 14 characters", c)
	}
	p.must(0, build, "plan", "--detailed-exitcode")

	for name, length := range map[string]tether.NumberInput{"nil": nil, "zero Number": tether.Number{}} {
		t.Run(name, func(t *testing.T) {
			p := newProgram(t)
			code, _, stderr := p.run(func(s *tether.Stack) error {
				builtin.NewRandom(s, "r", builtin.RandomArgs{Length: length})
				return nil
			}, "plan")
			if code != 1 || !strings.Contains(stderr, "Missing required field") {
				t.Errorf("exit %d:\n%s", code, stderr)
			}
		})
	}
}
