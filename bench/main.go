// Command bench measures Tether against Terraform on generated
// configurations of N resources in four shapes (wide, chain, layered and a
// module tree with for_each): first apply, no-op plan with refresh, changing
// one resource and destroy, each as a separate process, reporting wall and
// CPU seconds, peak memory and the Terraform/Tether ratio as a Markdown
// table. With a per-resource delay it also compares Tether's apply makespan
// with its lower bound, and it runs the first apply of a shape with the
// built-in provider served out of process, through the plugin protocol.
//
// The aws-plan shape, run only when named, plans N pairs of aws_s3_bucket
// and aws_iam_policy (the policy referring to the bucket's ARN) from
// scratch through the real AWS provider, Terraform first, then Tether, in
// one run:
//
//	go run ./bench --sizes aws-plan=200,1000 --runs 3
//
// The provider comes from a Terraform filesystem mirror: --aws-mirror DIR
// (the folder above registry.terraform.io), else /opt/tf-plugins and
// Terraform's implied local mirrors, else anywhere on the file system; with
// none, the shape is skipped with a message. Both tools get a CLI
// configuration (TF_CLI_CONFIG_FILE) with only a filesystem_mirror, every
// proxy variable pointing at a local trap that counts and refuses
// connections, and no AWS or TF_ variables of the caller's; each runs
// `init`, then `terraform plan -input=false -refresh=false` or `tether
// plan` in a fresh folder, and Tether plans twice more in the same folder:
// with what the first plan kept, then with the provider's logging off. For
// each it reports wall time, CPU of the tool and the providers it reaped,
// the peak of their summed resident sets (sampled from /proc), and each
// provider process's own CPU time and peak from its rusage: the mirror the
// tools install from is a copy of the real one's layout whose executable is
// this harness, which runs the real provider and records its rusage (see
// wrap.go). The floor is the provider's CPU in the quiet plan divided by
// the cores. TestAWSPlanSmoke runs the shape at one pair with tether alone,
// unless -short or the provider is in no usual mirror.
//
// The gRPC cases (--grpc SHAPE:N,..., wide:10000 by default) run a first
// apply through internal/engine in this process with the built-in provider
// in process, then as a plugin (`tether provider serve` behind a script,
// through internal/plugin.Start), then as a plugin with its logging off,
// the modes taking turns --runs times (the median of each is reported), and
// count the provider calls the engine made. They drive the engine so that
// the plugin's CPU and the calls can be told apart from the command's; where
// `tether up` honours a dev_overrides of tetherhq/tether (each run checks),
// each turn also times `tether up --yes` with the plugin, as a user runs it.
//
// bench/tetherprof is the tether command line with profiles written, to
// find where a step's time and memory go.
//
// Configurations and state live in a temporary folder that is removed at
// the end (--keep leaves it).
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Default sizes per shape, and the largest size Terraform runs at by
// default: Terraform's cost grows with the square of the size, so on two
// cores 1,000 wide resources take it half a minute over the four steps,
// and 1,000 in a chain over ten minutes (2.5 to apply, the rest to
// destroy).
var (
	quickSizes = map[string][]int{
		shapeWide: {100, 1000, 10000}, shapeChain: {100, 500},
		shapeLayered: {100, 1000}, shapeModules: {100, 1000},
	}
	fullSizes = map[string][]int{
		shapeWide: {100, 1000, 10000, 100000}, shapeChain: {100, 500, 1000, 10000},
		shapeLayered: {100, 1000, 10000, 100000}, shapeModules: {100, 1000, 10000, 100000},
	}
	quickTFMax = map[string]int{shapeWide: 1000, shapeChain: 500, shapeLayered: 100, shapeModules: 100}
	// awsSizes are the aws-plan shape's pairs when it is asked for
	// without sizes; Terraform runs at every one.
	awsSizes  = []int{200, 1000}
	fullTFMax = map[string]int{shapeWide: 1000, shapeChain: 500, shapeLayered: 1000, shapeModules: 1000}
)

const defaultLatencyCases = "wide:1000,wide:1000:100,chain:20,layered:1000"

type harness struct {
	root        string // the module's folder
	tmp         string
	tetherBin   string
	tools       []*tool
	shapes      []string
	sizes       map[string][]int
	tfMax       map[string]int // 0: no limit
	layers      int
	perFile     int
	delayMS     int
	latency     []latencyCase
	parallelism int
	runs        int
	timeout     time.Duration
	args        []string // as given, for the report
	keep        bool
	seq         int
	awsMirror   string // --aws-mirror
	grpc        []grpcCase
}

func main() {
	if real := os.Getenv(wrapRealEnv); real != "" {
		// A copy of the harness standing in for the AWS provider.
		os.Exit(wrapProvider(real, os.Getenv(wrapLogEnv)))
	}
	if os.Getenv(floorEnv) != "" {
		os.Exit(floorMain(os.Args[1:]))
	}
	os.Exit(run())
}

func run() int {
	var (
		sizesFlag   sizeFlags
		shapesFlag  = flag.String("shapes", strings.Join(allShapes, ","), "comma-separated shapes: "+strings.Join(knownShapes(), ", ")+" ("+shapeAWSPlan+" only when named)")
		toolsFlag   = flag.String("tools", "tether,terraform,tofu,floor", "comma-separated tools: tether, terraform, tofu (when on the PATH), floor (wide only)")
		full        = flag.Bool("full", false, "the full set of sizes, up to 100,000")
		tfMaxFlag   = flag.Int("tf-max", -1, "largest size Terraform runs at; 0 for no limit (default: per shape, none with --sizes)")
		write       = flag.String("write", "", "also write the report to this Markdown file (e.g. bench/RESULTS.md)")
		delayMS     = flag.Int("delay-ms", 100, "delay_ms of every tether_value in the latency cases; 0 skips them")
		latencyFlag = flag.String("latency", defaultLatencyCases, "latency cases, SHAPE:N[:PARALLELISM],...; empty skips them")
		parallelism = flag.Int("parallelism", 0, "--parallelism for both tools (default: each tool's own)")
		layers      = flag.Int("layers", 10, "layers of the layered shape")
		perFile     = flag.Int("per-file", 1000, "resources per .tf file; 0 puts them all in main.tf")
		runs        = flag.Int("runs", 1, "repeat each shape and size this many times and report the median")
		timeout     = flag.Duration("timeout", time.Hour, "stop any one command after this long")
		tetherBin   = flag.String("tether", "", "use this tether binary instead of building ./cmd/tether")
		keep        = flag.Bool("keep", false, "keep the temporary folder with configurations, state and logs")
		sdkN        = flag.Int("sdk", 10000, "resources of the Go SDK program whose graph build is timed; 0 skips it")
		grpcFlag    = flag.String("grpc", defaultGRPCCases, "first applies with the built-in provider in process and as a plugin, SHAPE:N,...; empty skips them")
		pgFlag      = flag.String("pg", "", "wide sizes to run with state in SQLite and in PostgreSQL (a throwaway cluster), N,...; empty skips them")
		remoteFlag  = flag.String("remote", "", "with --pg, also keep state in these backends on their emulators on 127.0.0.1: s3, http, gcs, azurerm (comma-separated)")
		cpuProfile  = flag.String("cpuprofile", "", "write a CPU profile of the harness itself (the latency and gRPC cases run the engine in it) to this file")
		awsMirror   = flag.String("aws-mirror", "", "filesystem mirror holding hashicorp/aws 5.x for the aws-plan shape (default: searched for)")
	)
	flag.Var(&sizesFlag, "sizes", "comma-separated sizes for every shape, or SHAPE=N,N,... for one shape (repeatable; default: a quick set per shape)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: go run ./bench [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		return 2
	}
	h := &harness{layers: max(1, *layers), perFile: max(0, *perFile), delayMS: *delayMS, parallelism: *parallelism, runs: max(1, *runs), timeout: *timeout, args: os.Args[1:],
		awsMirror: *awsMirror}

	var err error
	if h.shapes, err = parseShapes(*shapesFlag); err != nil {
		return fail(err)
	}
	h.sizes, h.tfMax = maps.Clone(quickSizes), maps.Clone(quickTFMax)
	if *full {
		h.sizes, h.tfMax = maps.Clone(fullSizes), maps.Clone(fullTFMax)
	}
	h.sizes[shapeAWSPlan] = awsSizes
	if len(sizesFlag) > 0 {
		// Explicit sizes: Terraform runs at all of them unless --tf-max.
		h.sizes, h.tfMax = map[string][]int{}, map[string]int{}
		named := map[string]bool{}
		for _, arg := range sizesFlag {
			shape, list, perShape := strings.Cut(arg, "=")
			if !perShape {
				list = arg
			} else if !validShape(shape) {
				return fail(fmt.Errorf("--sizes %s: unknown shape %q", arg, shape))
			}
			sizes, err := parseSizes(list)
			if err != nil {
				return fail(err)
			}
			for _, sh := range knownShapes() {
				if !perShape || sh == shape {
					h.sizes[sh] = sizes
				}
			}
			if perShape {
				named[shape] = true
			}
		}
		// Shapes given sizes are the ones measured, unless --shapes says;
		// aws-plan only when named.
		if !flagGiven("shapes") {
			h.shapes = nil
			for _, sh := range knownShapes() {
				if len(h.sizes[sh]) > 0 && (sh != shapeAWSPlan || named[sh]) {
					h.shapes = append(h.shapes, sh)
				}
			}
		}
	}
	if *tfMaxFlag >= 0 {
		h.tfMax = map[string]int{}
		for _, s := range allShapes {
			h.tfMax[s] = *tfMaxFlag
		}
	}
	// The latency cases, the Go SDK program and the gRPC cases go with
	// the resource-count shapes: a run of aws-plan alone leaves them out
	// unless their flags are given.
	awsOnly := len(h.shapes) > 0
	for _, sh := range h.shapes {
		awsOnly = awsOnly && sh == shapeAWSPlan
	}
	if *delayMS > 0 && (!awsOnly || flagGiven("latency") || flagGiven("delay-ms")) {
		if h.latency, err = parseLatencyCases(*latencyFlag); err != nil {
			return fail(err)
		}
	}
	if awsOnly && !flagGiven("sdk") {
		*sdkN = 0
	}
	if !awsOnly || flagGiven("grpc") {
		if h.grpc, err = parseGRPCCases(*grpcFlag); err != nil {
			return fail(err)
		}
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err)
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if h.root, err = moduleRoot(); err != nil {
		return fail(err)
	}
	if h.tmp, err = os.MkdirTemp("", "tether-bench-"); err != nil {
		return fail(err)
	}
	// Every first apply makes a state, and tether keeps a key for each in
	// the user's configuration folder: the run's own folder takes them.
	tetherConfigHome = filepath.Join(h.tmp, "config")
	h.keep = *keep
	if *keep {
		fmt.Fprintf(os.Stderr, "keeping %s\n", h.tmp)
	} else {
		defer os.RemoveAll(h.tmp)
	}

	wantTether, wantTF, wantTofu, wantFloor := false, false, false, false
	for _, t := range strings.Split(*toolsFlag, ",") {
		switch strings.TrimSpace(t) {
		case "tether":
			wantTether = true
		case "terraform":
			wantTF = true
		case "tofu":
			wantTofu = true
		case "floor":
			wantFloor = true
		case "":
		default:
			return fail(fmt.Errorf("unknown tool %q", t))
		}
	}
	// The latency cases and the report need a tether binary even when the
	// table leaves tether out.
	h.tetherBin = *tetherBin
	// The revision is read as the binary is built: others may commit
	// while the harness runs.
	tetherRev := gitRevision(h.root)
	if h.tetherBin != "" {
		tetherRev = "the binary " + h.tetherBin + " (the tree: " + tetherRev + ")"
	}
	if h.tetherBin == "" {
		fmt.Fprintln(os.Stderr, "building ./cmd/tether ...")
		h.tetherBin = filepath.Join(h.tmp, "bin", "tether")
		build := exec.CommandContext(ctx, "go", "build", "-o", h.tetherBin, "./cmd/tether")
		build.Dir = h.root
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fail(fmt.Errorf("building tether: %w", err))
		}
	}
	if wantTether {
		h.tools = append(h.tools, newTether(h.tetherBin, h.parallelism))
	}
	tfVersion := ""
	if wantTF {
		bin, err := exec.LookPath("terraform")
		if err != nil {
			fmt.Fprintln(os.Stderr, "terraform is not on the PATH; measuring tether alone")
		} else {
			cliConfig := filepath.Join(h.tmp, "terraformrc")
			if err := os.WriteFile(cliConfig, nil, 0o644); err != nil {
				return fail(err)
			}
			h.tools = append(h.tools, newTerraform(bin, cliConfig, h.parallelism))
			tfVersion = terraformVersion(ctx, bin)
		}
	}

	if err := h.addPeers(ctx, wantTofu, wantFloor); err != nil {
		return fail(err)
	}

	var (
		cases      []*caseResult
		awsCases   []*awsCase
		aws        *awsSetup
		awsMissing string
	)
	for _, shape := range h.shapes {
		if shape == shapeAWSPlan {
			if aws, err = h.prepareAWS(); err != nil {
				awsMissing = err.Error()
				fmt.Fprintf(os.Stderr, "%s: skipped: %s\n", shapeAWSPlan, awsMissing)
				continue
			}
			fmt.Fprintf(os.Stderr, "%s: hashicorp/aws %s from %s\n", shapeAWSPlan, aws.prov.version, aws.prov.mirror)
			for _, n := range h.sizes[shape] {
				if ctx.Err() != nil {
					break
				}
				awsCases = append(awsCases, h.runAWSCase(ctx, aws, n))
			}
			aws.trap.close()
			continue
		}
		for _, n := range h.sizes[shape] {
			if ctx.Err() != nil {
				break
			}
			cases = append(cases, h.runCase(ctx, shape, n))
		}
	}
	var lat []latencyResult
	for _, c := range h.latency {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(os.Stderr, "latency %s, delay %d ms ...\n", c, h.delayMS)
		r := h.runLatency(ctx, c)
		fmt.Fprintf(os.Stderr, "  makespan %s, bound %s\n", r.makespan.Round(time.Millisecond), r.bound)
		lat = append(lat, r)
	}
	var grpcResults []grpcResult
	if len(h.grpc) > 0 && ctx.Err() == nil {
		if dir, err := grpcPluginDir(h.tmp, h.tetherBin); err != nil {
			fmt.Fprintf(os.Stderr, "gRPC cases: %v\n", err)
		} else {
			override := h.checkDevOverride(ctx, dir)
			fmt.Fprintf(os.Stderr, "dev_overrides for tetherhq/tether: %s\n", override.detail)
			for _, c := range h.grpc {
				if ctx.Err() != nil {
					break
				}
				fmt.Fprintf(os.Stderr, "gRPC %s ...\n", c)
				r := h.runGRPC(ctx, c, dir, override)
				for _, x := range []struct {
					mode string
					run  engineRun
				}{{"in process", r.inProcess}, {"plugin", r.plugin}, {"quiet", r.quiet}} {
					if x.run.err != "" {
						fmt.Fprintf(os.Stderr, "  %-10s FAILED: %s\n", x.mode, x.run.err)
					} else {
						fmt.Fprintf(os.Stderr, "  %-10s %6.2fs (start %.2f, load %.2f, plan %.2f, apply %.2f)\n", x.mode, x.run.total().Seconds(),
							x.run.start.Seconds(), x.run.load.Seconds(), x.run.plan.Seconds(), x.run.apply.Seconds())
					}
				}
				if r.upRun {
					if r.up.ok() {
						fmt.Fprintf(os.Stderr, "  tether up  %6.2fs (CPU %.2f)\n", r.up.Wall.Seconds(), r.up.CPU.Seconds())
					} else {
						fmt.Fprintf(os.Stderr, "  tether up  FAILED: %s\n", r.up.Err)
					}
				}
				grpcResults = append(grpcResults, r)
			}
		}
	}
	var pgResults []pgResult
	remotes, err := parseRemotes(*remoteFlag)
	if err != nil {
		return fail(err)
	}
	if pgSizes, err := parsePGSizes(*pgFlag); err != nil {
		return fail(err)
	} else {
		for _, n := range pgSizes {
			if ctx.Err() != nil {
				break
			}
			fmt.Fprintf(os.Stderr, "PostgreSQL wide %d ...\n", n)
			r := h.runPG(ctx, n, remotes)
			if r.err != "" {
				fmt.Fprintf(os.Stderr, "  FAILED: %s\n", r.err)
			}
			pgResults = append(pgResults, r)
		}
	}
	var sdk *sdkResult
	if *sdkN > 0 && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "Go SDK program of %d resources ...\n", *sdkN)
		r := h.runSDK(ctx, *sdkN)
		sdk = &r
		switch {
		case r.missing != "":
			fmt.Fprintf(os.Stderr, "  %s\n", r.missing)
		case !r.build.ok():
			fmt.Fprintf(os.Stderr, "  build FAILED: %s\n", r.build.Err)
		case !r.graph.ok():
			fmt.Fprintf(os.Stderr, "  graph FAILED: %s\n", r.graph.Err)
		default:
			fmt.Fprintf(os.Stderr, "  graph %.2fs wall, %.0f MiB\n", r.graph.Wall.Seconds(), mib(r.graph.MaxRSS))
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "interrupted; reporting what was measured")
	}

	rep := report{
		when: time.Now(), args: h.args, machine: describeMachine(), tfVersion: tfVersion,
		tetherRev: tetherRev, cases: cases, latency: lat, delayMS: h.delayMS, layers: h.layers, perFile: h.perFile, runs: h.runs,
		tools: h.tools, sdk: sdk, aws: aws, awsCases: awsCases, awsMissing: awsMissing, grpc: grpcResults,
		pg: pgResults,
	}
	text := rep.markdown()
	fmt.Print(text)
	if *write != "" {
		if err := os.WriteFile(*write, []byte(text), 0o644); err != nil {
			return fail(err)
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", *write)
	}
	if ctx.Err() != nil {
		return 1
	}
	return 0
}

// sizeFlags are the --sizes arguments in order.
type sizeFlags []string

func (s *sizeFlags) String() string     { return strings.Join(*s, " ") }
func (s *sizeFlags) Set(v string) error { *s = append(*s, v); return nil }

func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "bench: %v\n", err)
	return 1
}

func parseShapes(s string) ([]string, error) {
	var out []string
	for _, sh := range strings.Split(s, ",") {
		sh = strings.TrimSpace(sh)
		if sh == "" {
			continue
		}
		if !validShape(sh) {
			return nil, fmt.Errorf("unknown shape %q; want %s", sh, strings.Join(knownShapes(), ", "))
		}
		out = append(out, sh)
	}
	return out, nil
}

func validShape(s string) bool { return slices.Contains(knownShapes(), s) }

// knownShapes are the resource-count shapes and aws-plan.
func knownShapes() []string { return append(slices.Clone(allShapes), shapeAWSPlan) }

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ReplaceAll(strings.TrimSpace(f), "_", "")
		if f == "" {
			continue
		}
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			f, mult = strings.TrimSuffix(f, "k"), 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, n*mult)
	}
	sort.Ints(out)
	return out, nil
}

// moduleRoot is the folder of the main module, where ./cmd/tether is.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run the harness inside the tether module: go run ./bench")
	}
	return filepath.Dir(mod), nil
}

func (h *harness) caseDir(name string) (string, error) {
	h.seq++
	dir := filepath.Join(h.tmp, fmt.Sprintf("%03d-%s", h.seq, strings.ReplaceAll(name, ":", "-")))
	return dir, os.MkdirAll(dir, 0o755)
}

// caseResult holds one shape and size: for each tool, each step's
// measurements over the runs.
type caseResult struct {
	shape string
	n     int
	// byTool[tool][step] are the runs' measurements.
	byTool map[string]map[string][]measurement
	// notRun names the tools left out of this case, with why.
	notRun map[string]string
}

// get is the median run of a step, by wall time; a failed run wins, so
// that a failure is never hidden behind a median.
func (c *caseResult) get(tool, step string) (measurement, bool) {
	return median(c.byTool[tool][step], func(m measurement) measurement { return m })
}

// median is the run of median wall time, or the first failed run.
func median[M any](ms []M, of func(M) measurement) (M, bool) {
	var zero M
	if len(ms) == 0 {
		return zero, false
	}
	for _, m := range ms {
		if !of(m).ok() {
			return m, true
		}
	}
	s := slices.Clone(ms)
	sort.Slice(s, func(i, j int) bool { return of(s[i]).Wall < of(s[j]).Wall })
	return s[len(s)/2], true
}

func (h *harness) runCase(ctx context.Context, shape string, n int) *caseResult {
	c := &caseResult{shape: shape, n: n, byTool: map[string]map[string][]measurement{}, notRun: map[string]string{}}
	type active struct {
		t      *tool
		dir    string
		failed bool
	}
	var tools []*active
	for _, t := range h.tools {
		if why := notRunFor(t, shape); why != "" {
			c.notRun[t.name] = why
			continue
		}
		if (t.name == "terraform" || t.name == "tofu") && h.tfMax[shape] > 0 && n > h.tfMax[shape] {
			c.notRun[t.name] = fmt.Sprintf("not run above %d (--tf-max)", h.tfMax[shape])
			continue
		}
		dir, err := h.caseDir(fmt.Sprintf("%s-%d-%s", shape, n, t.name))
		if err != nil {
			c.notRun[t.name] = err.Error()
			continue
		}
		c.byTool[t.name] = map[string][]measurement{}
		tools = append(tools, &active{t: t, dir: dir})
	}
	gen := func(a *active, changed int) error {
		return generate(a.dir, spec{shape: shape, n: n, layers: h.layers, perFile: h.perFile, resType: a.t.resType, changed: changed})
	}
	record := func(a *active, step string, m measurement) {
		c.byTool[a.t.name][step] = append(c.byTool[a.t.name][step], m)
		if !m.ok() {
			a.failed = true
		}
		status := fmt.Sprintf("%6.2fs wall %6.2fs cpu %6.0f MiB", m.Wall.Seconds(), m.CPU.Seconds(), mib(m.MaxRSS))
		if m.NA {
			status = "n/a (unsupported)"
		} else if m.Err != "" {
			status = "FAILED: " + m.Err
		}
		fmt.Fprintf(os.Stderr, "%-8s %6d  %-9s %-12s %s\n", shape, n, a.t.name, step, status)
	}
	for _, a := range tools {
		if err := gen(a, -1); err != nil {
			record(a, stepApply, measurement{Err: err.Error()})
			continue
		}
		if a.t.init != nil {
			if m := a.t.exec(ctx, a.dir, "init", a.t.init, "", h.timeout); !m.ok() {
				record(a, stepApply, m)
			}
		}
	}
	for r := 0; r < h.runs; r++ {
		for _, step := range allSteps {
			for _, a := range tools {
				if _, has := a.t.steps[step]; a.failed || ctx.Err() != nil || !has {
					continue
				}
				if step == stepChange {
					if err := gen(a, changedIndex(n)); err != nil {
						record(a, step, measurement{Err: err.Error()})
						continue
					}
				}
				record(a, step, a.t.run(ctx, a.dir, step, n, h.timeout))
			}
		}
		for _, a := range tools {
			if !a.failed {
				gen(a, -1) // back to the base configuration for the next run
			}
		}
	}
	// A configuration refused as unsupported is n/a for every step.
	for _, a := range tools {
		if m, ok := c.get(a.t.name, stepApply); ok && m.NA {
			for _, step := range allSteps[1:] {
				c.byTool[a.t.name][step] = []measurement{{NA: true}}
			}
		}
		if !h.keep {
			os.RemoveAll(a.dir) // state of 100,000 resources is not small
		}
	}
	return c
}

func terraformVersion(ctx context.Context, bin string) string {
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+os.DevNull)
	out, err := cmd.Output()
	if err != nil {
		return "terraform (version unknown)"
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first)
}

func gitRevision(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += " with local changes"
	}
	return rev
}
