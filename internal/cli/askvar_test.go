package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A required variable nothing sets is asked for on a terminal, as
// Terraform asks (var.NAME, its description, "Enter a value:"), and the
// answer is its value; with -input=false, TF_INPUT=0 or no terminal it
// is the error it was.
func TestAskForRequiredVariable(t *testing.T) {
	run := upIn(t, `
variable "name" {
  description = "Who to greet."
}
variable "b" {}
resource "tether_file" "f" {
  path    = "out.txt"
  content = "${var.b} ${var.name}"
}
`)
	code, out, errs := run("hello\nworld\nyes\n", true)
	if code != 0 {
		t.Fatalf("up on a terminal: exit %d\n%s\n%s", code, out, errs)
	}
	if want := "var.b\n  Enter a value: \nvar.name\n  Who to greet.\n\n  Enter a value: \n"; !strings.HasPrefix(out, want) {
		t.Errorf("up asked\n%q\nwant it to start with\n%q", out, want)
	}
	if b, _ := os.ReadFile("out.txt"); string(b) != "hello world" {
		t.Errorf("out.txt holds %q, want the answers, %q", b, "hello world")
	}

	// Synth writes declarations: it does not ask for a value it would
	// not write.
	var sout, serrs bytes.Buffer
	e := &env{stdin: strings.NewReader("x\ny\n"), stdout: &sout, stderr: &serrs, stdinTTY: true}
	if code := e.synth(context.Background(), nil); code != 1 || strings.Contains(sout.String(), "Enter a value") {
		t.Errorf("synth on a terminal: exit %d, want 1 without asking\n%s\n%s", code, sout.String(), serrs.String())
	}

	for _, c := range []struct {
		name string
		tty  bool
		args []string
		env  string
	}{
		{"no terminal", false, nil, ""},
		{"-input=false", true, []string{"-input=false"}, ""},
		{"TF_INPUT=0", true, nil, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("TF_INPUT", c.env)
			}
			code, out, errs := run("x\ny\nyes\n", c.tty, c.args...)
			if code != 1 || !strings.Contains(errs, "No value for required variable") || strings.Contains(out, "Enter a value") {
				t.Errorf("exit %d, want 1 and the error, without asking\n%s\n%s", code, out, errs)
			}
		})
	}
}

// upIn writes config as main.tf in a fresh folder, made the working
// folder, and returns a function running tether up there with the stdin
// given, on a terminal or not.
func upIn(t *testing.T, config string) func(stdin string, tty bool, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TETHER_STATE_KEY", strings.Repeat("ab", 32))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Chdir(dir)
	if err := os.WriteFile("main.tf", []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(stdin string, tty bool, args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errs, stdinTTY: tty}
		code := e.up(context.Background(), args, false)
		return code, out.String(), errs.String()
	}
}
