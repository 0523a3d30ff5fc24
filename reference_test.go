package tether_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
	"github.com/tetherhq/tether/internal/canary"
)

// vaultSecret is a reference kind of the tests' own: a secret kept in a
// store that takes a token, which is itself a reference.
type vaultSecret struct {
	Path  string
	Token tether.Reference[string]
}

// vault is the store: path to secret, reachable with vaultToken.
var (
	vault      = map[string]string{}
	vaultToken string
)

func (v vaultSecret) Resolve(ctx context.Context) (string, error) {
	token, err := v.Token.Resolve(ctx)
	if err != nil {
		return "", err
	}
	if token == "" || token != vaultToken {
		// As careless kinds do, the error quotes the token it was given.
		return "", fmt.Errorf("permission denied for %s with token %q", v.Path, token)
	}
	s, ok := vault[v.Path]
	if !ok {
		return "", fmt.Errorf("no secret at %s", v.Path)
	}
	return s, nil
}

// credentials is what the inventory returns: every field accepts
// references, so a reference to it can stand for it (Fields).
type credentials struct {
	User     tether.Reference[string]
	Password tether.Reference[string]
	Port     tether.Reference[int]
}

// inventory looks credentials up for a device, with a token that is a
// reference.
type inventory struct {
	Device string
	Role   string
	Token  tether.Reference[string]
}

func (i inventory) Resolve(ctx context.Context) (credentials, error) {
	token, err := i.Token.Resolve(ctx)
	if err != nil {
		return credentials{}, err
	}
	return credentials{
		User:     tether.Plain(i.Role + "@" + i.Device),
		Password: tether.Plain("pw-" + token[len(token)-6:]),
		Port:     tether.Plain(2222),
	}, nil
}

// login has tagged string fields, as generated argument structs do,
// which accept references too.
type login struct {
	User     string `tether:"user"`
	Password string `tether:"password"`
}

type loginRef struct{ Name string }

func (l loginRef) Resolve(context.Context) (login, error) {
	return login{User: l.Name, Password: os.Getenv("LOGIN_PASSWORD")}, nil
}

// endpoint makes a string of a host and a port that may be a reference:
// how a reference to a number reaches a string argument.
type endpoint struct {
	Host string
	Port tether.Reference[int]
}

func (e endpoint) Resolve(ctx context.Context) (string, error) {
	port, err := e.Port.Resolve(ctx)
	return fmt.Sprintf("%s:%d", e.Host, port), err
}

// wrap returns the argument it was given, resolved, inside a struct.
type wrap struct{ Value tether.Reference[string] }

type wrapped struct{ Inner tether.Reference[string] }

func (w wrap) Resolve(context.Context) (wrapped, error) { return wrapped{Inner: w.Value}, nil }

func init() {
	tether.RegisterReference[wrap]("wrap")
	tether.RegisterReference[endpoint]("endpoint")
	tether.RegisterReference[vaultSecret]("vault")
	tether.RegisterReference[inventory]("inventory")
	tether.RegisterReference[*loginRef]("login")
}

// TestReferenceKindsOfYourOwn: reference kinds defined in Go, composed
// with built-in ones, resolve in the engine; a reference to a struct
// stands for the struct by its fields; none of the values reaches state
// or the screen, and a change of any is planned as an update.
func TestReferenceKindsOfYourOwn(t *testing.T) {
	p := newProgram(t)
	token := randomSecret(t, "token")
	dbSecret := randomSecret(t, "db")
	loginPw := randomSecret(t, "login")
	t.Setenv("VAULT_TOKEN", token)
	t.Setenv("INVENTORY_TOKEN", token)
	t.Setenv("LOGIN_PASSWORD", loginPw)
	vault["secret/db"] = dbSecret
	vaultToken = token
	build := func(s *tether.Stack) error {
		db := tether.NewReference(vaultSecret{Path: "secret/db", Token: tether.EnvReference("VAULT_TOKEN")})
		builtin.NewFile(s, "db", builtin.FileArgs{Path: "db.txt", Content: db.String()})

		creds := tether.NewReference(inventory{Device: "leaf1", Role: "admin", Token: tether.EnvReference("INVENTORY_TOKEN")}).Fields()
		builtin.NewFile(s, "user", builtin.FileArgs{Path: "user.txt", Content: creds.User.String()})
		builtin.NewFile(s, "password", builtin.FileArgs{Path: "password.txt", Content: creds.Password.String()})
		// A reference to a number is an argument of another reference;
		// a reference to a string goes into an attribute of any type.
		addr := tether.NewReference(endpoint{Host: "db.internal", Port: creds.Port})
		builtin.NewValue(s, "addr", builtin.ValueArgs{Input: map[string]any{"addr": addr}})

		l := tether.NewReference(&loginRef{Name: "ops"}).Fields()
		builtin.NewFile(s, "login", builtin.FileArgs{Path: "login.txt", Content: l.Password})
		w := tether.NewReference(wrap{Value: tether.EnvReference("LOGIN_PASSWORD")}).Fields()
		builtin.NewFile(s, "wrapped", builtin.FileArgs{Path: "wrapped.txt", Content: w.Inner.String()})
		s.Export("db", db)
		return nil
	}
	secrets := []string{token, dbSecret, loginPw, "pw-" + token[len(token)-6:]}
	check := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := p.run(build, args...)
		if code != 0 && code != 2 {
			t.Fatalf("%s exited %d:\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		if _, how, ok := canary.Find([]byte(stdout+stderr), secrets...); ok {
			t.Fatalf("%s printed a secret (%s):\n%s", strings.Join(args, " "), how, stdout)
		}
		return stdout
	}
	plan := check("plan")
	for _, want := range []string{
		`content         = "(reference vault secret/db (reference env VAULT_TOKEN))"`,
		`content         = "(reference field (reference inventory leaf1 admin (reference env INVENTORY_TOKEN)) User)"`,
		`content         = "(reference field (reference login ops) password)"`,
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}
	check("up", "--yes")
	for file, want := range map[string]string{
		"db.txt": dbSecret, "user.txt": "admin@leaf1", "password.txt": "pw-" + token[len(token)-6:], "login.txt": loginPw, "wrapped.txt": loginPw,
	} {
		if got := p.read(file); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	addr := p.must(0, build, "state", "show", "tether_value.addr")
	if !strings.Contains(addr, `"(reference endpoint db.internal (reference field (reference inventory leaf1 admin (reference env INVENTORY_TOKEN)) Port))"`) {
		t.Errorf("state show tether_value.addr:\n%s", addr)
	}
	p.must(0, build, "plan", "--detailed-exitcode")

	// The store's secret changes: its file is updated, nothing else.
	vault["secret/db"] = randomSecret(t, "db")
	secrets = append(secrets, vault["secret/db"])
	plan = p.must(2, build, "plan", "--detailed-exitcode")
	if !strings.Contains(plan, "tether_file.db will be updated in-place") || strings.Contains(plan, "tether_file.user will") {
		t.Errorf("plan:\n%s", plan)
	}
	check("up", "--yes")
	if got := p.read("db.txt"); got != vault["secret/db"] {
		t.Errorf("db.txt = %q", got)
	}
	if out := check("output", "db"); strings.TrimSpace(out) != `"(reference vault secret/db (reference env VAULT_TOKEN))"` {
		t.Errorf("output db = %q", out)
	}
	// Only the files the program asked for hold secrets.
	leaks, err := canary.ScanDir(p.dir, secrets)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		switch l.Path {
		case "db.txt", "password.txt", "login.txt", "wrapped.txt":
		default:
			t.Error(l)
		}
	}

	// A failing resolution fails that resource, naming the reference and
	// never a value.
	// The token the kind's error quotes, the value of the reference it was
	// given, is shown as that reference's description.
	t.Setenv("VAULT_TOKEN", "wrong-token-CANARY-77ad")
	code, _, stderr := p.run(build, "plan")
	stderr = strings.Join(strings.Fields(stderr), " ")
	if code != 1 || !strings.Contains(stderr, "tether_file.db: Cannot resolve reference") ||
		!strings.Contains(stderr, `(reference vault secret/db (reference env VAULT_TOKEN)): permission denied for secret/db with token "(reference env VAULT_TOKEN)"`) ||
		strings.Contains(stderr, "CANARY-77ad") {
		t.Errorf("plan with a wrong token exited %d:\n%s", code, stderr)
	}
}

// TestReferenceValuesInTheProgram: what a Reference is to the program.
func TestReferenceValuesInTheProgram(t *testing.T) {
	ref := tether.EnvReference(tether.FileReference("name.txt"))
	if got := ref.Description(); got != "(reference env (reference file name.txt))" {
		t.Errorf("Description = %q", got)
	}
	if _, err := ref.Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot be resolved by the program") {
		t.Errorf("Resolve outside the engine: %v", err)
	}
	if s := ref.String(); !strings.HasPrefix(s, "${tether:") {
		t.Errorf("String = %q", s)
	}
	if got := fmt.Sprintf("%v", ref); got != ref.String() {
		t.Errorf("%%v = %q, want the token", got)
	}
	v, err := tether.Plain(42).Resolve(context.Background())
	if err != nil || v != 42 {
		t.Errorf("Plain(42).Resolve = %v, %v", v, err)
	}
	var zero tether.Reference[string]
	if zero.String() != "" || zero.Description() != "null" {
		t.Errorf("zero Reference: %q %q", zero.String(), zero.Description())
	}
}

// TestSecretThroughApply: a value computed from a secret stays secret,
// and exporting it needs Sensitive.
func TestSecretThroughApply(t *testing.T) {
	p := newProgram(t)
	secret := randomSecret(t, "apply")
	build := func(s *tether.Stack) error {
		upper := tether.Apply(tether.Secret(secret), strings.ToUpper)
		builtin.NewFile(s, "f", builtin.FileArgs{Path: "f.txt", Content: upper.String()})
		s.Export("upper", upper, tether.Sensitive())
		return nil
	}
	plan := p.must(2, build, "plan", "--detailed-exitcode")
	if !strings.Contains(plan, "content         = (sensitive value)") || strings.Contains(plan, strings.ToUpper(secret)) {
		t.Errorf("plan:\n%s", plan)
	}
	p.must(0, build, "up", "--yes")
	if got := p.read("f.txt"); got != strings.ToUpper(secret) {
		t.Errorf("f.txt = %q", got)
	}
	if leaks, _ := canary.ScanDir(p.dir+"/.tether", []string{strings.ToUpper(secret)}); len(leaks) > 0 {
		t.Error(leaks)
	}

	code, _, stderr := p.run(func(s *tether.Stack) error {
		s.Export("plain", tether.Apply(tether.Secret(secret), strings.ToUpper))
		return nil
	}, "plan")
	if code != 1 || !strings.Contains(stderr, `reference_test.go:`) || !strings.Contains(stderr, `Export "plain" holds a secret`) || !strings.Contains(stderr, "tether.Sensitive()") {
		t.Errorf("exporting a secret without Sensitive exited %d:\n%s", code, stderr)
	}
}
