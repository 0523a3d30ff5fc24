package platform

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/awsfake"
	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/providertest"
)

// awsMirror is the filesystem mirror that holds the real hashicorp/aws
// provider on these machines.
const awsMirror = "/opt/tf-plugins"

// echoOnAWS is what examples/echo becomes on the aws platform.
var echoOnAWS = []string{
	"aws_apigatewayv2_api.main",
	"aws_apigatewayv2_integration.main_get_echo_route",
	"aws_apigatewayv2_route.main_get_echo_route",
	"aws_apigatewayv2_stage.main",
	"aws_cloudwatch_log_group.main_get_echo",
	"aws_iam_role.main_get_echo",
	"aws_iam_role_policy_attachment.main_get_echo",
	"aws_lambda_function.main_get_echo",
	"aws_lambda_permission.main_get_echo_route",
	// The tester's tests run from this machine, from the program's copy.
	"tether_program.self",
	"tether_tester.e2e",
}

var createdRE = regexp.MustCompile(`(?m)^  # (\S+) will be created$`)

func created(stdout string) []string {
	var out []string
	for _, m := range createdRE.FindAllStringSubmatch(stdout, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestAWSPlatform plans examples/echo on the aws platform through the
// real hashicorp/aws provider, offline (fake keys, the provider's skip_*
// settings, a proxy on loopback that answers nothing, so any call to AWS
// would fail), and then plans what `synth --platform aws` writes with
// terraform: the same resources.
func TestAWSPlatform(t *testing.T) {
	t.Parallel()
	tools := e2e.SynthTools(t)
	if _, err := os.Stat(filepath.Join(awsMirror, "registry.terraform.io/hashicorp/aws")); err != nil {
		t.Skipf("the aws platform is planned through the real hashicorp/aws provider, and the filesystem mirror %s does not hold it", awsMirror)
	}
	// Tether runs its built-in provider in process; terraform installs
	// its plugin build from a mirror of its own, beside the AWS one.
	rc := func(withTether bool) string {
		text := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n    include = [\"hashicorp/*\"]\n  }\n", awsMirror)
		if withTether {
			mirror := providertest.UnpackedMirror(t, t.TempDir(), providertest.Provider{
				Source:     tfaddr.MustParseProviderSource("tetherhq/tether"),
				Version:    "0.0.1",
				Executable: filepath.Join(filepath.Dir(tools.Tether), "plugins", "terraform-provider-tether"),
			})
			text += fmt.Sprintf("  filesystem_mirror {\n    path = %q\n    include = [\"tetherhq/*\"]\n  }\n", mirror)
		}
		p := filepath.Join(t.TempDir(), "terraformrc")
		if err := os.WriteFile(p, []byte(text+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	offline := []string{
		"AWS_ACCESS_KEY_ID=AKIAFAKEFAKEFAKEFAKE", "AWS_SECRET_ACCESS_KEY=fake-secret-never-checked",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_REGION=eu-west-1",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=",
	}
	ttEnv := append(append(e2e.EnvForExample(t, tools, false), "TF_CLI_CONFIG_FILE="+rc(false), "TETHER_AWS_OFFLINE=true"), offline...)
	// Building the program twice (for this machine and for Lambda) and
	// installing the provider take minutes on a busy machine.
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: e2e.CopyExample(t, "echo"), Env: ttEnv, Timeout: 10 * time.Minute}

	r := tt.Run("plan", "--platform", "aws")
	if r.Code != 0 || r.Err != nil {
		t.Fatalf("tether plan --platform aws failed: %v\n%s", r.Err, r)
	}
	if got := created(r.Stdout); !slices.Equal(got, echoOnAWS) {
		t.Errorf("tether plans to create\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(echoOnAWS, "\n"), r)
	}
	for _, want := range []string{
		`route_key\s+= "GET /echo"`,
		`runtime\s+= "provided.al2023"`,
		`"TETHER_CLOSURE" = "tether_function.main_get_echo"`,
		`payload_format_version\s+= "2.0"`,
		`name\s+= "\$default"`,
		`Plan: 11 to add, 0 to change, 0 to destroy\.`,
	} {
		if !regexp.MustCompile(want).MatchString(r.Stdout) {
			t.Errorf("the plan lacks %s\n%s", want, r.Stdout)
		}
	}
	ttCount := e2e.PlanCount(r.Stdout)

	// Destroying needs no code: the program is not built for Lambda. The
	// build is put aside for the destroy, and back for synth, which then
	// finds it up to date instead of linking it again.
	built, aside := filepath.Join(tt.Dir, ".tether", "aws"), filepath.Join(tt.Dir, ".tether", "aws-aside")
	if err := os.Rename(built, aside); err != nil {
		t.Fatal(err)
	}
	if r := tt.Run("destroy", "--platform", "aws", "--yes"); r.Code != 0 || r.Err != nil || !strings.Contains(r.Stdout, "No changes") {
		t.Errorf("tether destroy --platform aws of nothing: %v\n%s", r.Err, r)
	}
	if _, err := os.Stat(filepath.Join(built, "bootstrap")); err == nil {
		t.Errorf("destroy built the program for Lambda")
	}
	if err := os.RemoveAll(built); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, built); err != nil {
		t.Fatal(err)
	}

	// The same program, synthesised for aws, planned by terraform.
	out := filepath.Join(t.TempDir(), "tf")
	if r := tt.Run("synth", "--platform", "aws", "--out", out); r.Code != 0 || r.Err != nil {
		t.Fatalf("tether synth --platform aws failed: %v\n%s", r.Err, r)
	}
	if _, err := os.Stat(filepath.Join(out, "bootstrap.zip")); err != nil {
		t.Errorf("synth wrote no bundle beside the JSON: %v", err)
	}
	var tfEnv []string
	for _, kv := range e2e.EnvForExample(t, tools, true) {
		if !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			tfEnv = append(tfEnv, kv)
		}
	}
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: out, Env: append(append(tfEnv, "TF_CLI_CONFIG_FILE="+rc(true)), offline...), Timeout: 10 * time.Minute}
	for _, args := range [][]string{{"init", "-input=false", "-no-color"}, {"validate", "-no-color"}} {
		if r := tf.Run(args...); r.Code != 0 || r.Err != nil {
			t.Fatalf("terraform %s of the synthesised JSON failed: %v\n%s", args[0], r.Err, r)
		}
	}
	r = tf.Run("plan", "-input=false", "-no-color")
	if r.Code != 0 || r.Err != nil {
		t.Fatalf("terraform plan of the synthesised JSON failed: %v\n%s", r.Err, r)
	}
	if got := created(r.Stdout); !slices.Equal(got, echoOnAWS) {
		t.Errorf("terraform plans to create\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(echoOnAWS, "\n"))
	}
	if tfCount := e2e.PlanCount(r.Stdout); tfCount == "" || tfCount != ttCount {
		t.Errorf("terraform plans %q, tether %q", tfCount, ttCount)
	}
}

// TestAWSPlatformHCL plans *.tf files on the aws platform through the
// real provider: a store becomes a DynamoDB table whose endpoint is known
// at plan, and a function that runs a command is an error naming it,
// never deployed on this machine.
func TestAWSPlatformHCL(t *testing.T) {
	t.Parallel()
	tools := e2e.SynthTools(t)
	if _, err := os.Stat(filepath.Join(awsMirror, "registry.terraform.io/hashicorp/aws")); err != nil {
		t.Skipf("the aws platform is planned through the real hashicorp/aws provider, and the filesystem mirror %s does not hold it", awsMirror)
	}
	dir := t.TempDir()
	store := "resource \"tether_kv\" \"notes\" {}\n\noutput \"endpoint\" {\n  value = tether_kv.notes.endpoint\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(store), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", awsMirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(e2e.DiffEnv(tools), "TF_CLI_CONFIG_FILE="+rc, "TETHER_AWS_REGION=eu-west-1", "TETHER_AWS_PREFIX=shop", "TETHER_AWS_OFFLINE=true",
		"AWS_ACCESS_KEY_ID=AKIAFAKEFAKEFAKEFAKE", "AWS_SECRET_ACCESS_KEY=fake-secret-never-checked", "AWS_EC2_METADATA_DISABLED=true",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=")
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: env, Timeout: 10 * time.Minute}
	r := tt.Run("plan", "--platform", "aws", "--no-color")
	if r.Code != 0 || !slices.Equal(created(r.Stdout), []string{"aws_dynamodb_table.notes"}) ||
		!strings.Contains(r.Stdout, `+ endpoint = "dynamodb://shop-notes?region=eu-west-1"`) ||
		!regexp.MustCompile(`hash_key\s+= "key"`).MatchString(r.Stdout) {
		t.Errorf("want a DynamoDB table shop-notes keyed by key, and its endpoint\n%s", r)
	}

	fn := "resource \"tether_function\" \"api\" {\n  command = [\"./server\"]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tt.Run("plan", "--platform", "aws", "--no-color")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Error: main.tf:1:1: Not available on AWS") ||
		!strings.Contains(r.Stderr, "tether_function.api: a tether_function that runs a command on this machine") {
		t.Errorf("want an error naming tether_function.api at main.tf:1:1\n%s", r)
	}
}

// onAWSFake starts internal/awsfake with the Lambda emulator, stopped
// when t ends, and returns tether run in the folder dir makes with the
// environment that points hashicorp/aws at the fake, installs it from
// the filesystem mirror and catches any other address with a proxy that
// answers nothing. It skips t where that cannot run.
func onAWSFake(t *testing.T, dir func() string) (e2e.Side, *awsfake.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program for Lambda and the runtime interface emulator: skipped with -short")
	}
	tools := e2e.SynthTools(t)
	mirror := providertest.AWSMirror()
	if mirror == "" {
		t.Skip("the aws platform deploys through the real hashicorp/aws provider, and no filesystem mirror (/opt/tf-plugins) holds it")
	}
	fake, err := awsfake.Start(awsfake.Options{Emulator: providertest.LambdaEmulator(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	rc := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(append(e2e.EnvForExample(t, tools, false), "TF_CLI_CONFIG_FILE="+rc, "TETHER_AWS_OFFLINE=true",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1"), fake.Env()...)
	return e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir(), Env: env, Timeout: 15 * time.Minute}, fake
}

// TestAWSUp deploys a copy of examples/echo with `tether up --platform
// aws` through the real hashicorp/aws provider to internal/awsfake, a
// fake AWS control plane on 127.0.0.1 (AWS_ENDPOINT_URL; a proxy that
// answers nothing catches any other address), whose API endpoint runs
// the deployed zip's bootstrap under the Lambda runtime interface
// emulator: the deployed program answers. tether test --platform aws
// deploys, tests from this machine against the endpoint and destroys;
// the second plan is clean; destroy, with the platform state recorded,
// leaves the fake empty.
func TestAWSUp(t *testing.T) {
	t.Parallel()
	tt, fake := onAWSFake(t, func() string { return e2e.CopyExample(t, "echo") })

	if r := tt.Run("up", "--platform", "aws", "--yes"); r.Code != 0 || r.Err != nil || !strings.Contains(r.Stdout, "Apply complete! Resources: 11 added") {
		t.Fatalf("tether up --platform aws: %v\n%s", r.Err, r)
	}
	r := tt.Run("output", "--raw", "url")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "http://127.0.0.1:") {
		t.Fatalf("output url: %s", r)
	}
	resp, err := http.Get(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "Hello" {
		t.Errorf("GET %s answered %d %q, want 200 Hello", r.Stdout, resp.StatusCode, body)
	}
	if r := tt.Run("plan", "--detailed-exitcode"); r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
		t.Errorf("second plan (the platform from state): %s", r)
	}
	before := fake.Objects()
	if r := tt.Run("test", "--platform", "aws"); r.Code != 0 || r.Err != nil {
		t.Errorf("tether test --platform aws: %v\n%s", r.Err, r)
	}
	if after := fake.Objects(); !slices.Equal(before, after) {
		t.Errorf("tether test left the fake with\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	if r := tt.Run("destroy", "--yes"); r.Code != 0 || r.Err != nil || !strings.Contains(r.Stdout, "Resources: 11 destroyed") {
		t.Errorf("tether destroy: %v\n%s", r.Err, r)
	}
	if left := fake.Objects(); len(left) > 0 {
		t.Errorf("destroy left in the fake:\n%s", strings.Join(left, "\n"))
	}

	// A tester that fails against the deployed endpoint fails the run,
	// which still destroys what it deployed.
	main := filepath.Join(tt.Dir, "main.go")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	failing := strings.Replace(string(src), `if string(body) != "Hello" {`, `if string(body) != "Goodbye" {`, 1)
	if failing == string(src) {
		t.Fatal("examples/echo's test no longer compares the body with Hello")
	}
	if err := os.WriteFile(main, []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := tt.Run("test", "--platform", "aws"); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, `got "Hello", want "Hello"`) {
		t.Errorf("a failing tester on aws: want a failure showing its output\n%s", r)
	}
	if left := fake.Objects(); len(left) > 0 {
		t.Errorf("the failed test left in the fake:\n%s", strings.Join(left, "\n"))
	}
}
