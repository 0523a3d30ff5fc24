package tether_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
	"github.com/tetherhq/tether/internal/canary"
)

func randomSecret(t *testing.T, name string) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return name + "-" + hex.EncodeToString(b)
}

// TestSecretsCanary is the secrets canary of issue 6 for Go programs: a
// random secret goes through an environment reference, another through a
// composed reference (the variable's name read from a file), a third
// through tether.Secret, into files. Through plan, up, an up after the
// secrets change, output, graph, state and destroy, none of them appears
// in anything printed or in any file of the state folder, while the files
// on disk hold the right values.
func TestSecretsCanary(t *testing.T) {
	p := newProgram(t)
	pw := randomSecret(t, "pw")
	token := randomSecret(t, "token")
	key := randomSecret(t, "key")
	t.Setenv("DB_PASSWORD", pw)
	t.Setenv("ROOT_TOKEN", token)
	t.Setenv("API_KEY", key)
	if err := os.WriteFile(filepath.Join(p.dir, "name.txt"), []byte("ROOT_TOKEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(s *tether.Stack) error {
		pwFile := builtin.NewFile(s, "pw", builtin.FileArgs{
			Path:    "out/pw.txt",
			Content: tether.EnvReference("DB_PASSWORD").String(),
		})
		builtin.NewFile(s, "composed", builtin.FileArgs{
			Path:    "out/composed.txt",
			Content: tether.EnvReference(tether.FileReference("name.txt")).String(),
		})
		apiKey := tether.Secret(os.Getenv("API_KEY"))
		builtin.NewFile(s, "key", builtin.FileArgs{Path: "out/key.txt", Content: "key=" + apiKey.String()})
		s.Export("pw_path", pwFile.Path())
		s.Export("pw_content", pwFile.Content())
		s.Export("key", apiKey, tether.Sensitive())
		return nil
	}
	secrets := []string{pw, token, key}
	// run runs a command and checks that nothing it printed, on stdout
	// or stderr, and no file of the state folder holds a secret: after
	// every command, because SQLite's WAL and journal files come and go.
	run := func(code int, args ...string) string {
		t.Helper()
		got, stdout, stderr := p.run(build, args...)
		if got != code {
			t.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, stdout, stderr)
		}
		if _, how, ok := canary.Find([]byte(stdout+stderr), secrets...); ok {
			t.Fatalf("%s printed a secret (%s)", strings.Join(args, " "), how)
		}
		leaks, err := canary.ScanDir(filepath.Join(p.dir, ".tether"), secrets)
		if err != nil {
			t.Fatal(err)
		}
		if len(leaks) > 0 {
			t.Fatalf("after %s: %v", strings.Join(args, " "), leaks)
		}
		return stdout
	}

	plan := run(2, "plan", "--detailed-exitcode")
	for _, want := range []string{
		`content         = "(reference env DB_PASSWORD)"`,
		`content         = "(reference env (reference file name.txt))"`,
		`content         = (sensitive value)`,
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}
	run(0, "up", "--yes")
	check := func(file, want string) {
		t.Helper()
		if got := p.read(file); got != want {
			t.Errorf("%s holds %d bytes, not the expected secret", file, len(got))
		}
	}
	check("out/pw.txt", pw)
	check("out/composed.txt", token)
	check("out/key.txt", "key="+key)
	run(0, "plan", "--detailed-exitcode")

	// New secrets are noticed without being stored: updates in place.
	pw2, key2 := randomSecret(t, "pw"), randomSecret(t, "key")
	secrets = append(secrets, pw2, key2)
	t.Setenv("DB_PASSWORD", pw2)
	t.Setenv("API_KEY", key2)
	plan = run(2, "plan", "--detailed-exitcode")
	for _, want := range []string{"# tether_file.pw will be updated in-place", "# tether_file.key will be updated in-place"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "tether_file.composed will") {
		t.Errorf("the composed reference did not change, yet:\n%s", plan)
	}
	up := run(0, "up", "--yes")
	if !strings.Contains(up, "Resources: 0 added, 2 changed, 0 destroyed.") {
		t.Errorf("up:\n%s", up)
	}
	check("out/pw.txt", pw2)
	check("out/composed.txt", token)
	check("out/key.txt", "key="+key2)
	run(0, "plan", "--detailed-exitcode")

	out := run(0, "output")
	for _, want := range []string{`pw_path = "out/pw.txt"`, `pw_content = "(reference env DB_PASSWORD)"`, `key = (sensitive value)`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	// Named, a sensitive output is its value, as in Terraform: the one
	// command that prints the key, and only because it was asked to.
	if _, stdout, _ := p.run(build, "output", "--raw", "key"); stdout != key2 {
		t.Errorf("output --raw key printed %d bytes, not the key", len(stdout))
	}
	// The JSON forms: outputs, state and plan as Terraform's JSON, the
	// machine-readable UI stream.
	// output --json shows a sensitive output's value, as Terraform's
	// does; never a reference's.
	if _, stdout, _ := p.run(build, "output", "--json"); !strings.Contains(stdout, key2) {
		t.Errorf("output --json lacks the sensitive output:\n%d bytes", len(stdout))
	} else if _, how, ok := canary.Find([]byte(stdout), pw, pw2, token); ok {
		t.Errorf("output --json printed a referenced secret (%s)", how)
	}
	// So does show -json, in values and outputs, as Terraform's does
	// (with sensitive_values saying which); never a reference's.
	if _, stdout, _ := p.run(build, "show", "-json"); !strings.Contains(stdout, key2) {
		t.Errorf("show -json lacks the sensitive values:\n%d bytes", len(stdout))
	} else if _, how, ok := canary.Find([]byte(stdout), pw, pw2, token); ok {
		t.Errorf("show -json printed a referenced secret (%s)", how)
	}
	run(0, "plan", "-json")
	run(0, "graph")
	run(0, "state", "list")
	for _, addr := range []string{"tether_file.pw", "tether_file.composed", "tether_file.key"} {
		show := run(0, "state", "show", addr)
		if addr == "tether_file.pw" && !strings.Contains(show, `"(reference env DB_PASSWORD)"`) {
			t.Errorf("state show %s:\n%s", addr, show)
		}
	}
	run(0, "destroy", "--yes")
	if _, err := os.Stat(filepath.Join(p.dir, "out", "pw.txt")); !os.IsNotExist(err) {
		t.Errorf("out/pw.txt after destroy: %v", err)
	}
	// Everything Tether wrote anywhere in the program's folder, except
	// the files it was asked to write.
	leaks, err := canary.ScanDir(p.dir, secrets, "out")
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) > 0 {
		t.Fatal(leaks)
	}
}
