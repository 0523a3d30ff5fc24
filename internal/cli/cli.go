package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// Version is the tether version, set at build time.
var Version = "0.1.0-dev"

// env is what one invocation runs with.
type env struct {
	// installFlags applies init's -lockfile and -plugin-dir to the
	// installation of providers; nil elsewhere.
	installFlags func(*install.Options)
	// compactWarnings is -compact-warnings: warnings without an error
	// are printed a line each.
	compactWarnings bool

	stdin          io.Reader
	stdout, stderr io.Writer
	color          bool
	tty            bool // stdout is a terminal
	stdinTTY       bool
	// src loads the configuration; nil means the HCL files of the
	// configuration folder, or the Go program there.
	src Source
	// diagSink, when set, reports the configuration's diagnostics in
	// place of the human form on stderr (-json).
	diagSink func(diags hcl.Diagnostics, sources map[string][]byte)
	// stateKeys loads the key of the state openState opened.
	stateKeys func() (*secrets.Keys, error)
	// program is what a Go program declared, once this run loaded it.
	program *programDecl
	// files holds the configuration files as read and parsed, so that
	// the backend block and the configuration come from one parse (for
	// a large configuration, a parse costs a tenth of a second a file).
	// See parsed.
	files *hclconfig.Files
}

// parsed is the command's configuration files as read and parsed.
func (e *env) parsed() *hclconfig.Files {
	if e.files == nil {
		e.files = &hclconfig.Files{}
	}
	return e.files
}

// Main runs the tether command with args (without the program name) and
// returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Run(args, stdin, stdout, stderr, nil)
}

// Run is Main with the configuration taken from src instead of the
// configuration folder's HCL files: a Go program built with the SDK runs
// the same commands, flags, output and exit codes through it. With a nil
// src it is Main, which hands a folder holding a Go program instead of
// *.tf files to that program.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, src Source) int {
	tuneGC()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, src: src}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.tty = true
		e.color = os.Getenv("NO_COLOR") == ""
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.stdinTTY = true
	}
	// The folder may also be given before the command: -C DIR as with
	// git, or -chdir=DIR as with Terraform.
	if dir, flag, n := globalDir(args); n > 0 {
		if err := os.Chdir(dir); err != nil {
			fmt.Fprintf(stderr, "Error: cannot use %s %s: %v\n", flag, dir, err)
			return 1
		}
		args = args[n:]
	}
	if len(args) == 0 {
		usage(stderr)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A reader that goes away (tether plan | head) must make writes fail,
	// not kill the process: killed, it would leave the state locked.
	signal.Ignore(syscall.SIGPIPE)

	cmd, rest := args[0], args[1:]
	closeLog, err := logging.Setup(os.Environ(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	defer closeLog()
	// The command's name only: its arguments may hold a -var's secret.
	logging.Core().Info("tether starting", "version", Version, "command", cmd)
	if src == nil && loadsConfig(cmd) {
		if dir, ok := goProgramDir(rest); ok {
			return e.runGoProgram(dir, cmd, rest)
		}
	}
	switch cmd {
	case "init":
		return e.init(ctx, rest)
	case "plan":
		return e.plan(ctx, rest)
	case "up", "apply":
		return e.up(ctx, rest, false)
	case "destroy":
		return e.up(ctx, rest, true)
	case "refresh":
		return e.refresh(ctx, rest)
	case "get":
		return e.get(ctx, rest)
	case "force-unlock":
		return e.forceUnlock(ctx, rest)
	case "console":
		return e.console(ctx, rest)
	case "show":
		return e.show(ctx, rest)
	case "output":
		return e.output(ctx, rest)
	case "state":
		return e.state(ctx, rest)
	case "workspace":
		return e.workspace(ctx, rest)
	case "graph":
		return e.graph(ctx, rest)
	case "import":
		return e.importCmd(ctx, rest)
	case "taint":
		return e.taint(ctx, rest, true)
	case "untaint":
		return e.taint(ctx, rest, false)
	case "fmt":
		return e.fmt(rest)
	case "validate":
		return e.validate(ctx, rest)
	case "synth":
		return e.synth(ctx, rest)
	case "gen":
		return e.gen(ctx, rest)
	case "test":
		return e.test(ctx, rest)
	case "provider":
		return e.provider(rest)
	case "providers":
		return e.providers(ctx, rest)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "tether %s\n", Version)
		return 0
	case "help", "-h", "--help", "-help":
		// help COMMAND [SUBCOMMAND] is COMMAND [SUBCOMMAND] --help.
		if len(rest) > 0 && slices.Contains(commands, rest[0]) && rest[0] != "help" {
			return Run(append(rest, "--help"), stdin, stdout, stderr, src)
		}
		usage(stdout)
		return 0
	}
	// As Terraform: a line naming the likely command, not the usage.
	fmt.Fprintf(stderr, "Tether has no command named %q.%s\n\nTo see all of Tether's top-level commands, run:\n  tether -help\n\n", cmd, hclconfig.DidYouMean(cmd, commands))
	return 1
}

// commands are the command names Run knows, for suggestions.
var commands = []string{"init", "plan", "up", "apply", "destroy", "refresh", "get", "force-unlock", "console", "show", "output", "state", "workspace", "graph", "import", "taint", "untaint", "fmt", "validate", "synth", "gen", "test", "provider", "providers", "version", "help"}

// globalDir reads the folder option that may come before the command:
// the folder, the option as given, and how many arguments it took (0 for
// none).
func globalDir(args []string) (string, string, int) {
	if len(args) == 0 {
		return "", "", 0
	}
	name, value, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	if !strings.HasPrefix(args[0], "-") || (name != "C" && name != "chdir") {
		return "", "", 0
	}
	flag := "-" + name
	if hasValue {
		return value, flag, 1
	}
	if len(args) < 2 {
		return "", "", 0
	}
	return args[1], flag, 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: tether [-C DIR | -chdir=DIR] COMMAND [options]

Commands:
  init       Set up the backend, install the providers  [--upgrade] [-migrate-state]
  plan       Show what would change          [--detailed-exitcode] [-out FILE]
  import     Adopt an existing object: ADDRESS ID
  up         Plan and apply the changes      [--yes] [FILE]  (also: apply)
  destroy    Destroy everything recorded     [--yes]
  refresh    Record what the objects are now (up -refresh-only --yes)
  show       Show state or a saved plan      [-json] [FILE]
  console    Evaluate expressions read from standard input
  validate   Check the configuration         [--json]
  synth      Write it as Terraform JSON      [--out DIR]
  fmt        Rewrite files in the canonical format  [--check] [--diff]
  output     Show root outputs               [--json] [--raw] [NAME]
  state      Read and edit state: list, show, rm, mv, pull, push, replace-provider, unlock
  force-unlock Break the state lock with the given ID: LOCK_ID
  get        Install the modules the configuration calls  [-update]
  workspace  Manage workspaces: new, select, list, show, delete
  taint      Mark an object to be replaced by the next up
  untaint    Keep an object the next up would replace
  graph      Print the dependency graph as DOT   [--arch]
  test       Deploy a test stack, run its tests, destroy it
  gen        Generate Go SDK bindings        [--from SOURCE]
  provider   serve: run the built-in provider for Terraform
  providers  Show the providers required: lock, mirror
  version    Print the version

Run "tether COMMAND --help" for a command's options.

Common options:
  -C DIR                  Use the configuration in DIR (default: current folder)
  -var NAME=VALUE         Set an input variable (repeatable)
  -var-file FILE          Read input variables from FILE (repeatable)
  --parallelism N         Provider operations at once (default 256)
  --refresh=false         Plan from recorded state without reading objects back
  --input=false           Never ask; fail where an answer is needed
  --lock-timeout D        Wait up to D (such as 30s) for the state lock
  --no-color              Print no colours
  --platform NAME         Deploy functions, routers and stores on local or aws

Plan options (plan, up):
  -target ADDRESS         Plan only ADDRESS and what it depends on
  -exclude ADDRESS        Plan all but ADDRESS and what depends on it
  -replace ADDRESS        Replace an instance even if nothing requires it
  -refresh-only           Record what refresh finds; change nothing else
  -json                   Print Terraform's machine-readable JSON lines

Debug log: TF_LOG=TRACE|DEBUG|INFO|WARN|ERROR|JSON, TF_LOG_PATH=FILE.
`)
}

// common holds the flags shared by commands that load configuration.
type common struct {
	dir         string
	vars        varArgs
	parallelism int
	refresh     bool
	// input=false forbids asking anything: where an answer is needed,
	// the command fails instead.
	input bool
	// lockTimeout is how long to wait for a state lock another process
	// holds; 0 fails at once.
	lockTimeout time.Duration
	noColor     bool
	// noLock is -lock=false: the command neither takes nor checks the
	// state's lock, as Terraform's -lock=false (see lockOption).
	noLock bool
	// destroying is set by destroy: the configuration is loaded only to
	// destroy what state records.
	destroying bool
	// initializing is set by init: installing providers is the command's
	// output, on stdout; elsewhere it is said on stderr. upgrade is init's
	// --upgrade.
	initializing, upgrade bool
	// validating is set by validate: root variables are unknown values.
	validating bool
	// environ replaces the process environment the configuration is
	// loaded with: a saved plan's TF_VAR_ variables.
	environ []string
	// workspace is the selected workspace, for terraform.workspace.
	workspace string
	// platform is --platform: local, aws, or empty for the
	// configuration's own choice.
	platform string
	// recorded is the platform the state was applied with, "" when it
	// records none (see recordedPlatform).
	recorded string
	// configDir is the folder the configuration is read from, relative
	// to the working folder, when it is another: a tether test run's
	// module.
	configDir string
	// parsed, when set, runs once the configuration's files are parsed,
	// before they are loaded (see LoadInput.parsed).
	parsed func()
}

type varArgs struct{ list *[]varArg }

type varArg struct{ name, value, file string }

func (v varArgs) String() string { return "" }

func (v varArgs) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("a variable is set as NAME=VALUE, such as -var 'region=eu-west-1'")
	}
	*v.list = append(*v.list, varArg{name: name, value: value})
	return nil
}

type varFiles struct{ list *[]varArg }

func (v varFiles) String() string { return "" }
func (v varFiles) Set(s string) error {
	*v.list = append(*v.list, varArg{file: s})
	return nil
}

func (e *env) flags(name string, c *common) *flag.FlagSet {
	fs := e.flagSet(name)
	if c != nil {
		var list []varArg
		c.vars = varArgs{list: &list}
		fs.StringVar(&c.dir, "C", ".", "configuration folder")
		fs.Var(c.vars, "var", "set an input variable, NAME=VALUE")
		fs.Var(varFiles(c.vars), "var-file", "read input variables from a file")
		fs.IntVar(&c.parallelism, "parallelism", engine.DefaultParallelism, "provider operations at once")
		fs.BoolVar(&c.refresh, "refresh", true, "read objects back from providers before planning")
		fs.BoolVar(&c.input, "input", true, "ask for input where it is needed")
		fs.DurationVar(&c.lockTimeout, "lock-timeout", 0, "wait this long for the state lock")
		fs.BoolVar(&c.noColor, "no-color", false, "print no colours")
		fs.StringVar(&c.platform, "platform", "", "where functions, routers and stores are deployed: local or aws")
	}
	return fs
}

// lockOption is Terraform's -lock flag, registered by the commands that
// take the state's lock (plan, up, destroy, refresh, console, import):
// only they can honour -lock=false, and elsewhere it is an unknown
// option rather than one accepted and ignored.
type lockOption struct{ c *common }

func (l lockOption) String() string   { return "true" }
func (l lockOption) IsBoolFlag() bool { return true }
func (l lockOption) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	l.c.noLock = !v
	return nil
}

// warningsFlag is Terraform's -compact-warnings, on the commands that plan.
func (e *env) warningsFlag(fs *flag.FlagSet) {
	fs.BoolVar(&e.compactWarnings, "compact-warnings", false, "show warnings, when there is no error, a line each")
}

func (e *env) lockFlag(fs *flag.FlagSet, c *common) {
	fs.Var(lockOption{c}, "lock", "take the state's lock (-lock=false: neither take nor check it; not recommended)")
}

// parseCommon parses a command that loads configuration and takes no
// other arguments, checking the shared flags' values. It returns the exit
// code to stop with, or -1 to go on.
func (e *env) parseCommon(fs *flag.FlagSet, c *common, args []string) int {
	pos, code := e.parseCommonArgs(fs, c, args)
	if code < 0 && !e.noArgs(fs.Name(), pos) {
		return 1
	}
	return code
}

// parseCommonArgs is parseCommon for a command that takes arguments: it
// returns them.
func (e *env) parseCommonArgs(fs *flag.FlagSet, c *common, args []string) ([]string, int) {
	pos, err := parse(fs, args)
	if err != nil {
		return nil, e.flagError(fs, err)
	}
	return pos, e.checkCommon(c)
}

func (e *env) checkCommon(c *common) int {
	if c.parallelism < 1 {
		fmt.Fprintf(e.stderr, "Error: --parallelism must be at least 1, not %d.\n", c.parallelism)
		return 1
	}
	if c.lockTimeout < 0 {
		fmt.Fprintf(e.stderr, "Error: --lock-timeout cannot be negative (%s).\n", c.lockTimeout)
		return 1
	}
	if c.noColor {
		e.color = false
	}
	if c.platform != "" && c.platform != "local" && c.platform != "aws" {
		fmt.Fprintf(e.stderr, "Error: --platform is local or aws, not %q.\n", c.platform)
		return 1
	}
	return -1
}

// parse parses flags that may come before or after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// "--" ends the options: everything after it is an argument.
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func (c *common) chdir() error {
	if c.dir == "" || c.dir == "." {
		return nil
	}
	if err := os.Chdir(c.dir); err != nil {
		return fmt.Errorf("cannot use -C %s: %w", c.dir, err)
	}
	return nil
}

// stateDir is where state lives, relative to the configuration folder.
const stateDir = ".tether"

func statePath() string { return filepath.Join(stateDir, "state.db") }

// providers returns the providers Tether runs and their schemas.
// builtinOnly reaches the built-in provider alone, for commands that read
// only what it recorded.
var builtinOnly = provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (e *env) errorf(format string, args ...any) int {
	fmt.Fprintf(e.stderr, "Error: "+format+"\n", args...)
	return 1
}

var errNotTerminal = errors.New("not a terminal")
