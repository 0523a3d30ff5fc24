package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// shapeAWSPlan is N pairs of aws_s3_bucket and aws_iam_policy, the policy
// referring to the bucket's ARN, planned from scratch through the real AWS
// provider: `init` then `plan` for each tool. It is not among the default
// shapes: it needs the provider in a filesystem mirror, and the figures it
// gives are of another kind (one plan, most of whose cost is the
// provider's).
const shapeAWSPlan = "aws-plan"

// awsMirrorDirs are where the harness looks for a filesystem mirror that
// holds hashicorp/aws before searching the whole file system: the folder
// the machine uses, then Terraform's implied local mirrors.
func awsMirrorDirs() []string {
	dirs := []string{"/opt/tf-plugins"}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".terraform.d", "plugins"), filepath.Join(home, ".local", "share", "terraform", "plugins"))
	}
	data := os.Getenv("XDG_DATA_DIRS")
	if data == "" {
		data = "/usr/local/share:/usr/share"
	}
	for _, d := range filepath.SplitList(data) {
		dirs = append(dirs, filepath.Join(d, "terraform", "plugins"))
	}
	return dirs
}

// awsProvider is the AWS provider as found in a mirror.
type awsProvider struct {
	mirror  string // the folder above registry.terraform.io
	exe     string
	version string
}

func (p awsProvider) platform() string { return runtime.GOOS + "_" + runtime.GOARCH }

// findAWSProvider looks for terraform-provider-aws_v5* of this platform in
// a filesystem mirror's unpacked layout, newest version first: in the
// folder given, else the usual folders, else anywhere on the file system.
func findAWSProvider(given string) (awsProvider, error) {
	dirs := awsMirrorDirs()
	if given != "" {
		dirs = []string{given}
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	if p, ok := findAWSProviderIn(dirs); ok {
		return p, nil
	}
	if given != "" {
		return awsProvider{}, fmt.Errorf("no registry.terraform.io/hashicorp/aws/5.*/%s/terraform-provider-aws_v5* under %s", platform, given)
	}
	// Anywhere else: the layout is the same, so the match names its mirror.
	var matches []string
	skip := map[string]bool{"/proc": true, "/sys": true, "/dev": true, "/run": true}
	filepath.WalkDir("/", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fs.SkipDir
		}
		if d.IsDir() && skip[path] {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "terraform-provider-aws_v5") &&
			strings.Contains(path, "/registry.terraform.io/hashicorp/aws/") && filepath.Base(filepath.Dir(path)) == platform {
			matches = append(matches, path)
		}
		return nil
	})
	if p, ok := newestAWS(matches); ok {
		return p, nil
	}
	return awsProvider{}, fmt.Errorf("hashicorp/aws 5.x for %s is in no filesystem mirror on this machine (looked in %s and the whole file system; --aws-mirror DIR names one)",
		platform, strings.Join(dirs, ", "))
}

// findAWSProviderIn looks in the mirrors given only.
func findAWSProviderIn(dirs []string) (awsProvider, bool) {
	platform := runtime.GOOS + "_" + runtime.GOARCH
	for _, d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, "registry.terraform.io", "hashicorp", "aws", "5.*", platform, "terraform-provider-aws_v5*"))
		if p, ok := newestAWS(matches); ok {
			return p, true
		}
	}
	return awsProvider{}, false
}

// newestAWS picks the highest version among executables at
// MIRROR/registry.terraform.io/hashicorp/aws/VERSION/PLATFORM/NAME.
func newestAWS(paths []string) (awsProvider, bool) {
	var found []awsProvider
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			continue
		}
		versionDir := filepath.Dir(filepath.Dir(p))
		mirror := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(versionDir))))
		found = append(found, awsProvider{mirror: mirror, exe: p, version: filepath.Base(versionDir)})
	}
	if len(found) == 0 {
		return awsProvider{}, false
	}
	sort.Slice(found, func(i, j int) bool { return versionLess(found[j].version, found[i].version) })
	return found[0], true
}

// versionLess compares dotted versions numerically, field by field.
func versionLess(a, b string) bool {
	fa, fb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(fa) && i < len(fb); i++ {
		var x, y int
		fmt.Sscan(fa[i], &x)
		fmt.Sscan(fb[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(fa) < len(fb)
}

// awsProviderBlock configures the provider so that planning needs no
// credentials and no network: the plan of these two resource types from
// scratch makes no API call. The keys are AWS's documented examples, of a
// real key's length: a sensitive provider argument is looked for in every
// value the provider returns, and a four-letter stand-in would be found
// where a real key never is, measuring something no user pays.
const awsProviderBlock = `provider "aws" {
  region                      = "us-east-1"
  access_key                  = "AKIAIOSFODNN7EXAMPLE"
  secret_key                  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}
`

// generateAWS writes the pairs, perFile resources (perFile/2 pairs) a file.
func generateAWS(dir string, pairs, perFile int, version string) error {
	head := fmt.Sprintf(`terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = %q
    }
  }
}

%s`, version, awsProviderBlock)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(head), 0o644); err != nil {
		return err
	}
	perFilePairs := max(1, perFile/2)
	if perFile == 0 {
		perFilePairs = pairs
	}
	var b strings.Builder
	flush := func(file int) error {
		if b.Len() == 0 {
			return nil
		}
		err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pairs_%04d.tf", file)), []byte(b.String()), 0o644)
		b.Reset()
		return err
	}
	for i := range pairs {
		if i > 0 && i%perFilePairs == 0 {
			if err := flush(i/perFilePairs - 1); err != nil {
				return err
			}
		}
		fmt.Fprintf(&b, `resource "aws_s3_bucket" "b%d" {
  bucket = "tether-bench-%d"
}

resource "aws_iam_policy" "p%d" {
  name = "tether-bench-%d"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["s3:GetObject"]
      Resource = ["${aws_s3_bucket.b%d.arn}/*"]
    }]
  })
}

`, i, i, i, i, i)
	}
	return flush((pairs - 1) / perFilePairs)
}

// netTrap stands in for every HTTP(S) proxy: it accepts a connection,
// counts it and closes it, so that a provider that tries to reach AWS
// fails at once, without leaving the machine, and the report says so.
type netTrap struct {
	ln net.Listener
	n  atomic.Int64
}

func newNetTrap() (*netTrap, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &netTrap{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.n.Add(1)
			c.Close()
		}
	}()
	return t, nil
}

func (t *netTrap) url() string { return "http://" + t.ln.Addr().String() }
func (t *netTrap) close()      { t.ln.Close() }

// awsEnv is the environment both tools run in: this machine's, without
// anything of AWS's, Terraform's or a proxy's, plus the CLI configuration,
// the trap as every proxy, and the provider wrapper's variables.
func awsEnv(cliConfig, trap, realProvider, runsLog string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		ku := strings.ToUpper(k)
		if strings.HasPrefix(ku, "AWS_") || strings.HasPrefix(ku, "TF_") || strings.HasSuffix(ku, "_PROXY") ||
			k == "CHECKPOINT_DISABLE" || k == wrapRealEnv || k == wrapLogEnv {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0", "NO_COLOR=1",
		"HTTP_PROXY="+trap, "HTTPS_PROXY="+trap, "http_proxy="+trap, "https_proxy="+trap, "NO_PROXY=", "no_proxy=",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull,
	)
	if tetherConfigHome != "" {
		env = append(env, "XDG_CONFIG_HOME="+tetherConfigHome)
	}
	if realProvider != "" {
		env = append(env, wrapRealEnv+"="+realProvider, wrapLogEnv+"="+runsLog)
	}
	return env
}

// awsStep is one measured command of the aws-plan shape.
type awsStep struct {
	measurement // Wall; CPU of the tool and the providers it reaped; MaxRSS: peak of the sum of their resident sets
	ToolPeak    int64
	// Providers are the provider processes the step ran.
	Providers []providerRun
	// ProviderPeak is the largest resident set of one provider process.
	ProviderPeak int64
	// Net is how many connections the tools tried to open through a proxy.
	Net int64
	// Load is the machine's one-minute load average when the step ended.
	Load float64
}

func (s awsStep) providerCPU() time.Duration {
	var d time.Duration
	for _, p := range s.Providers {
		d += p.User + p.System
	}
	return d
}

// awsCase holds one size: for each tool, its init and plan over the runs.
type awsCase struct {
	pairs   int
	byTool  map[string]map[string][]awsStep
	missing string // why nothing was measured
}

const (
	awsInit = "init"
	awsPlan = "plan"
	// awsAgain is tether's plan again in the same folder, with what the
	// first one kept (the provider's schema, which the AWS provider lets a
	// client keep: GetProviderSchemaOptional).
	awsAgain = "plan again"
	// awsQuiet is that again with the provider's logging off: the
	// provider's CPU for the calls alone, which the floor is made of.
	awsQuiet = "plan again, provider logging off"
)

// quietProvider turns off the logs a provider built on terraform-plugin-log
// and terraform-plugin-sdk writes to stderr. Without them the provider
// logs everything, at trace level, as JSON, for the tool to filter: for
// the AWS provider, tens of thousands of lines for a thousand resources.
var quietProvider = []string{
	"TF_LOG_PROVIDER=off", "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off",
	"TF_LOG_SDK_HELPER_SCHEMA=off", "TF_LOG_SDK_HELPER_RESOURCE=off", "TF_LOG_SDK_MUX=off",
}

// get is the median run of a step by wall time, a failure first.
func (c *awsCase) get(tool, step string) (awsStep, bool) {
	return median(c.byTool[tool][step], func(m awsStep) measurement { return m.measurement })
}

// awsSetup is what every size shares: the provider, the mirror of the
// wrapper, the CLI configuration and the trap.
type awsSetup struct {
	prov      awsProvider
	cliConfig string
	wrapped   bool // the mirror holds the wrapper, so providers' rusage is logged
	trap      *netTrap
}

// prepareAWS finds the provider and makes the mirror both tools install
// from: the real one, or, so that each provider process's rusage is known,
// one of the same layout whose executable is this harness, which runs the
// real provider (see wrapProvider).
func (h *harness) prepareAWS() (*awsSetup, error) {
	prov, err := findAWSProvider(h.awsMirror)
	if err != nil {
		return nil, err
	}
	s := &awsSetup{prov: prov}
	mirror := prov.mirror
	if self, err := os.Executable(); err == nil {
		rel, _ := filepath.Rel(prov.mirror, prov.exe)
		wrapper := filepath.Join(h.tmp, "aws-mirror", rel)
		if err := copyFile(self, wrapper); err == nil {
			mirror, s.wrapped = filepath.Join(h.tmp, "aws-mirror"), true
		} else {
			fmt.Fprintf(os.Stderr, "aws-plan: providers' CPU will not be known: %v\n", err)
		}
	}
	s.cliConfig = filepath.Join(h.tmp, "aws.tfrc")
	rc := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)
	if err := os.WriteFile(s.cliConfig, []byte(rc), 0o644); err != nil {
		return nil, err
	}
	if s.trap, err = newNetTrap(); err != nil {
		return nil, err
	}
	return s, nil
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// awsTools are the two tools set up for the shape in dir's subfolders:
// init, then a plan without refresh (there is nothing to refresh).
func (h *harness) awsTools(s *awsSetup, runsLog string) []*tool {
	env := func() []string {
		real := ""
		if s.wrapped {
			real = s.prov.exe
		}
		return awsEnv(s.cliConfig, s.trap.url(), real, runsLog)
	}
	var out []*tool
	for _, t := range h.tools {
		switch t.name {
		case "tether":
			plan := []string{"plan"}
			if h.parallelism > 0 {
				plan = append(plan, "--parallelism", fmt.Sprint(h.parallelism))
			}
			out = append(out, &tool{name: "tether", bin: t.bin, env: env(),
				steps: map[string][]string{awsInit: {"init"}, awsPlan: plan}})
		case "terraform":
			plan := []string{"plan", "-input=false", "-refresh=false", "-no-color"}
			if h.parallelism > 0 {
				plan = append(plan, fmt.Sprintf("-parallelism=%d", h.parallelism))
			}
			out = append(out, &tool{name: "terraform", bin: t.bin, env: env(),
				steps: map[string][]string{awsInit: {"init", "-input=false", "-no-color"}, awsPlan: plan}})
		}
	}
	return out
}

func (h *harness) runAWSCase(ctx context.Context, s *awsSetup, pairs int) *awsCase {
	c := &awsCase{pairs: pairs, byTool: map[string]map[string][]awsStep{}}
	type active struct {
		t      *tool
		dir    string
		runs   string
		failed bool
	}
	var tools []*active
	for _, name := range []string{"terraform", "tether"} { // Terraform first, as the figure is
		for _, t := range h.tools {
			if t.name != name {
				continue
			}
			dir, err := h.caseDir(fmt.Sprintf("%s-%d-%s", shapeAWSPlan, pairs, name))
			if err != nil {
				c.missing = err.Error()
				return c
			}
			runs := filepath.Join(dir, "provider-runs.jsonl")
			tt := h.awsTools(s, runs)
			for _, x := range tt {
				if x.name == name {
					tools = append(tools, &active{t: x, dir: dir, runs: runs})
				}
			}
			c.byTool[name] = map[string][]awsStep{}
		}
	}
	want := map[string]string{
		awsInit: "has been successfully initialized!",
		awsPlan: fmt.Sprintf("Plan: %d to add, 0 to change, 0 to destroy.", 2*pairs),
	}
	for r := 0; r < h.runs; r++ {
		for _, a := range tools {
			if a.failed || ctx.Err() != nil {
				continue
			}
			// Each run starts from nothing: a fresh folder, init, plan.
			os.RemoveAll(a.dir)
			if err := os.MkdirAll(a.dir, 0o755); err != nil {
				a.failed = true
				continue
			}
			if err := generateAWS(a.dir, pairs, h.perFile, s.prov.version); err != nil {
				c.byTool[a.t.name][awsInit] = append(c.byTool[a.t.name][awsInit], awsStep{measurement: measurement{Err: err.Error()}})
				a.failed = true
				continue
			}
			steps := []string{awsInit, awsPlan}
			if a.t.name == "tether" {
				steps = append(steps, awsAgain)
				if s.wrapped {
					steps = append(steps, awsQuiet)
				}
			}
			for _, step := range steps {
				t := a.t
				if step == awsAgain || step == awsQuiet {
					again := *a.t
					again.steps = map[string][]string{step: a.t.steps[awsPlan]}
					if step == awsQuiet {
						again.env = append(slices.Clone(a.t.env), quietProvider...)
					}
					t = &again
				}
				w := want[awsPlan]
				if step == awsInit {
					w = want[awsInit]
				}
				m := h.awsStep(ctx, s, t, a.dir, a.runs, step, w)
				c.byTool[a.t.name][step] = append(c.byTool[a.t.name][step], m)
				status := fmt.Sprintf("%6.2fs wall %6.2fs cpu (provider %6.2fs in %d) %6.0f MiB (tool %.0f, provider %.0f) net %d",
					m.Wall.Seconds(), m.CPU.Seconds(), m.providerCPU().Seconds(), len(m.Providers), mib(m.MaxRSS), mib(m.ToolPeak), mib(m.ProviderPeak), m.Net)
				if m.Err != "" {
					status = "FAILED: " + m.Err
				}
				fmt.Fprintf(os.Stderr, "%-8s %6d  %-9s %-12s %s load %.1f\n", shapeAWSPlan, pairs, a.t.name, step, status, m.Load)
				if !m.ok() {
					a.failed = true
					break
				}
			}
		}
	}
	if !h.keep {
		for _, a := range tools {
			os.RemoveAll(a.dir)
		}
	}
	return c
}

// awsStep runs one step, sampling the process tree's memory and reading
// the provider processes' rusage from the wrapper's log.
func (h *harness) awsStep(ctx context.Context, s *awsSetup, t *tool, dir, runsLog, step, want string) awsStep {
	os.Remove(runsLog)
	var sampler *treeSampler
	t.observe = func(pid int) func() {
		sampler = sampleTree(pid, wrapRealEnv)
		return sampler.finish
	}
	before := s.trap.n.Load()
	m := awsStep{measurement: t.exec(ctx, dir, step, t.steps[step], want, h.timeout)}
	m.Net = s.trap.n.Load() - before
	m.Load = loadAverage()
	if sampler != nil && treeSampling {
		m.MaxRSS = sampler.peak()
		m.ToolPeak = sampler.ownPeak()
		m.ProviderPeak = sampler.peakOf("terraform-provider-aws")
	}
	runs, err := readProviderRuns(runsLog)
	if err != nil && m.Err == "" {
		m.Err = err.Error()
	}
	m.Providers = runs
	for _, r := range runs {
		m.ProviderPeak = max(m.ProviderPeak, r.MaxRSS)
	}
	if m.Net > 0 && m.Err == "" {
		// Not an error: the provider failed fast against the trap and the
		// plan went on. The report shows the count.
		fmt.Fprintf(os.Stderr, "aws-plan: %s %s tried %d connection(s); the trap refused them\n", t.name, step, m.Net)
	}
	return m
}

// loadAverage is the one-minute load average, or 0 where unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}
