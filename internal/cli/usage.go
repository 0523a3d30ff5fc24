package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// help is each command's --help text, in the style of the top-level
// usage: what it does, then its options.
var help = map[string]string{
	"import": `Usage: tether import [options] ADDRESS ID

  Adopts the existing object ID into state at ADDRESS, a resource instance
  the configuration declares, as terraform import does, and changes
  nothing else. The next plan shows what the configuration would change
  on it. import blocks in the configuration do the same as part of a plan.

Options:
` + lockHelp + commonHelp,
	"init": `Usage: tether init [options]

  Installs the providers the configuration requires, from the sources
  Terraform's CLI configuration names (mirrors, registries, a plugin
  cache, development overrides), into .tether/providers, and records
  versions and checksums in .terraform.lock.hcl, the same file Terraform
  keeps. plan and up install a missing provider on their own.

  First it settles the backend: where state is kept. With a backend "pg"
  block, state is in PostgreSQL; with backend "s3", in an S3 bucket where
  Terraform's s3 backend keeps it; with backend "gcs", in a Google Cloud
  Storage bucket where Terraform's gcs backend keeps it; with backend
  "azurerm", in an Azure blob container where Terraform's azurerm backend
  keeps it; with backend "http", behind Terraform's http backend protocol;
  with none (or backend "local"), in .tether/. The choice is recorded in
  .tether/backend.json; plan and up refuse to run once the backend block
  changes, until init is run again.

  In a folder Terraform manages (a terraform.tfstate beside the
  configuration) and with no Tether state yet, init offers to take
  Terraform's state over: every resource instance and output is copied
  into Tether's state, sensitive values sealed, and terraform.tfstate is
  renamed terraform.tfstate.adopted.

Options:
  -C DIR                Use the configuration in DIR (default: current folder)
  -backend-config KEY=VALUE, -backend-config FILE
                        A backend setting, or a file of them (repeatable)
  -migrate-state        Move the state of every workspace to a changed backend
  -reconfigure          Use a changed backend as it is, leaving state behind
  -var, -var-file       Values of the variables module sources and the backend block use
  --upgrade             Choose the newest versions the constraints allow
  -force-copy           Take over Terraform's state without asking
  -backend=false        Leave the backend alone (and Terraform's state)
  -get=false            Install no module: use those installed (tether get)
  -lockfile=readonly    Check the providers against .terraform.lock.hcl without
                        changing it: a change of version is an error
  -plugin-dir DIR       Install providers only from DIR, a filesystem mirror
                        (repeatable), not from the CLI configuration's sources
  --input=false         Never ask: taking over Terraform's state then needs -force-copy
  --no-color            Print no colours
`,
	"workspace": `Usage: tether workspace SUBCOMMAND [options] [NAME]

  Manages workspaces: separate states of one configuration in one backend,
  as Terraform's. default always exists. The selected workspace is kept in
  .tether/environment; TF_WORKSPACE overrides it. In HCL,
  terraform.workspace is its name.

Subcommands:
  new NAME              Create a workspace and select it
  select [-or-create] NAME
                        Select a workspace (-or-create: creating it if it is new)
  list                  List the workspaces, the selected one marked *
  show                  Print the selected workspace
  delete NAME [-force]  Delete a workspace; -force when it records resources
`,
	"plan": `Usage: tether plan [options]

  Shows what up would change: what it would create, update, replace and
  destroy, and the outputs it would set.

Options:
  --detailed-exitcode   Exit 0 for no changes, 2 for changes, 1 on error
  --destroy             Plan to destroy everything recorded
  -out FILE             Save the plan to FILE, for tether up FILE to apply
` + planHelp + commonHelp,
	"up": `Usage: tether up [options] [FILE]

  Plans and applies the changes. Without --yes it shows the plan and asks;
  off a terminal it refuses rather than apply a plan nobody saw. With FILE,
  a plan saved by tether plan -out, it applies exactly that plan without
  asking, and refuses if state or the configuration changed since it was
  made. "tether apply" is the same command.

Options:
  --yes, --auto-approve Apply without asking
  -destroy              Destroy everything recorded, as tether destroy
` + planHelp + commonHelp,
	"destroy": `Usage: tether destroy [options]

  Destroys everything state records, dependents first.

Options:
  --yes, --auto-approve Destroy without asking
  -target ADDRESS       Destroy only ADDRESS and what depends on it (repeatable)
  -exclude ADDRESS      Destroy all but ADDRESS and what it depends on (repeatable)
  -json                 Print machine-readable JSON lines (needs --yes)
` + lockHelp + warningsHelp + commonHelp,
	"show": `Usage: tether show [options] [FILE]

  Shows what state records, or with FILE a plan saved by tether plan -out.

Options:
  -json                 Print Terraform's JSON representation of the state
                        or of the plan (terraform show -json's format)
  -C DIR                Use the configuration in DIR
  --no-color            Print no colours
`,
	"console": `Usage: tether console [options]

  Reads expressions from standard input, a line each, and prints their
  values, evaluated against the configuration and state as terraform
  console does: echo 'upper("a")' | tether console. "exit" or the end of
  the input ends it; it exits 1 if any expression failed.

Options:
` + lockHelp + commonHelp,
	"output": `Usage: tether output [options] [NAME]

  Shows the root module's outputs. With NAME, only that output's value;
  a string is printed without quotes. A sensitive output is hidden when
  all outputs are listed, and shown when it is named or with --json, as
  Terraform does: the caller asked for it by name.

Options:
  --json                Print JSON: an object of all outputs, or NAME's value
  --raw                 Print NAME's value as it is (a string, number or bool)
  -C DIR                Use the state of the configuration in DIR
`,
	"state": `Usage: tether state SUBCOMMAND [options] [ARGS]

  Reads and edits state.

Subcommands:
  list [ADDRESS...]     List recorded objects; with addresses, those they match
  show ADDRESS          Show one recorded object
  rm ADDRESS...         Forget objects without destroying them
  mv SOURCE DEST        Record an object, a resource or a module under a new address
  pull                  Write the state in Terraform's format (version 4) to stdout,
                        sensitive values in clear text as Terraform keeps them
  push FILE             Replace the state with a Terraform state file (- for stdin)
  replace-provider FROM TO
                        Record the objects of provider FROM as provider TO's (a
                        provider moved to another namespace or registry host)
  unlock                Break the lock a process that died left behind

Options:
  -C DIR                Use the state of the configuration in DIR
  --dry-run             (rm, mv) Show what would change, change nothing
  -force                (unlock) Break the lock of a holder still running on this host;
                        (push) replace state of another lineage or a newer serial
  -auto-approve         (replace-provider) Replace without asking
`,
	"force-unlock": `Usage: tether force-unlock [options] LOCK_ID

  Breaks the state lock with ID LOCK_ID, which a command the lock refused
  printed, as terraform force-unlock does. It asks first; a lock of
  another ID, taken since, is left alone. Break a lock only when its
  holder is known to have stopped: two processes writing one state lose
  each other's changes. (tether state unlock breaks a dead process's lock
  without the ID.)

Options:
  -C DIR                Use the state of the configuration in DIR
  -force                Break the lock without asking
`,
	"get": `Usage: tether get [options]

  Installs the modules the configuration calls into .tether/modules, as
  terraform get does: the module step of tether init, without providers
  or the backend.

Options:
  -C DIR                Use the configuration in DIR (default: current folder)
  -update               Install the newest version each module source allows,
                        replacing what is installed
  -var, -var-file       Values of the variables module sources use
  --no-color            Print no colours
`,
	"refresh": `Usage: tether refresh [options]

  Reads every recorded object back from its provider and records what it
  finds, without asking and without changing any object, as terraform
  refresh does. tether up -refresh-only shows the differences and asks
  first; prefer it where someone can look.

Options:
  -target ADDRESS       Refresh only ADDRESS and what it depends on (repeatable)
  -exclude ADDRESS      Refresh all but ADDRESS and what depends on it (repeatable)
` + lockHelp + warningsHelp + commonHelp,
	"taint": `Usage: tether taint [options] ADDRESS

  Marks a recorded object as tainted, so that the next up replaces it.

Options:
  -C DIR                Use the state of the configuration in DIR
`,
	"untaint": `Usage: tether untaint [options] ADDRESS

  Removes the tainted mark from a recorded object, so that the next up
  keeps it.

Options:
  -C DIR                Use the state of the configuration in DIR
`,
	"graph": `Usage: tether graph [options]

  Prints the configuration's dependency graph as DOT.

Options:
  --arch                Show the architecture of a Go program's closures
` + commonHelp,
	"test": `Usage: tether test [options]

  Runs the folder's Terraform test files (*.tftest.hcl, *.tftest.json, and
  those in tests/) as terraform test does. Then, when the configuration
  has tether_tester resources, deploys a stack of its own (.tether/test),
  runs every tester's tests, prints each with PASS or FAIL, and destroys
  the stack.

Options:
  -filter FILE          Run only this test file (repeatable)
  -json                 Print terraform test's JSON lines
  -verbose              Print each run's plan, or its state after an apply
  -run-parallelism N    Parallel runs of a test file at once (default 10)
` + commonHelp,
	"validate": `Usage: tether validate [options]

  Checks that the configuration is valid: syntax, references, argument
  names and types against the providers' schemas. It reads no state and
  calls no provider's API.

Options:
  --json                Print the result as JSON, in Terraform's format
  -C DIR                Validate the configuration in DIR
`,
	"fmt": `Usage: tether fmt [options] [TARGET...]

  Rewrites Terraform-language files (*.tf, *.tofu, *.tfvars, *.tftest.hcl) in the
  canonical format. TARGET is a file or folder (default: the current
  folder); - reads standard input and writes standard output.

Options:
  --check               Change nothing; exit 3 when a file is not formatted
  --diff                Print the differences
  --list=false          Do not print the names of changed files
  --write=false         Do not rewrite files
  --recursive           Also format files in subfolders
`,
	"gen": `Usage: tether gen --from SOURCE [options]
       tether gen --module SOURCE [--version V] [--out DIR] [--package NAME]
       tether gen

  Writes typed Go bindings for a provider's schema, or for a Terraform
  module's variables and outputs. With neither --from nor --module, it
  regenerates every binding tether.json declares (providers installed as
  init installs them, in the same lock file).

Options:
  --from SOURCE         builtin, a 'terraform providers schema -json' file, or a provider binary
  --out DIR             Folder to write the package to (default: the package name)
  --package NAME        Package name (default: the provider's name, with the suffix
                        "provider" where a standard library package has it: timeprovider)
  --provider NAME       The provider's local name or source address (hashicorp/time);
                        with a schema file holding several providers, which one
  --source SOURCE       The provider's source address, such as hashicorp/time (default:
                        from the binary's installed path, else hashicorp/NAME)
  --split MODE          auto, none or groups: one package per group of types
  --module SOURCE       A module: a local folder (relative to the program's folder),
                        a registry address, git::URL or an archive URL
  --version V           The provider's version; with --module, the module's version constraint
`,
	"provider": `Usage: tether provider serve

  Serves the built-in provider over the Terraform plugin protocol, as a
  provider plugin that Terraform starts.
`,
}

const planHelp = `  -target ADDRESS       Plan only ADDRESS and what it depends on (repeatable)
  -exclude ADDRESS      Plan all but ADDRESS and what depends on it (repeatable)
  -replace ADDRESS      Replace this resource instance even if nothing requires it (repeatable)
  -refresh-only         Record what refresh finds in state; change nothing else
  -json                 Print Terraform's machine-readable JSON lines (up needs --yes)
` + lockHelp + warningsHelp

// lockHelp is the -lock option of the commands that take the state's lock.
const lockHelp = `  -lock=false           Neither take nor check the state's lock (not recommended:
                        another process may write the state at the same time)
`

// warningsHelp is the -compact-warnings option of the commands that plan.
const warningsHelp = `  -compact-warnings     Show warnings, when there is no error, a line each
`

const commonHelp = `  -C DIR                Use the configuration in DIR (default: current folder)
  -var NAME=VALUE       Set an input variable (repeatable)
  -var-file FILE        Read input variables from FILE (repeatable)
  --parallelism N       Provider operations at once (default 256)
  --refresh=false       Plan from recorded state without reading objects back
  --input=false         Never ask for input; fail where an answer is needed
  --lock-timeout D      Wait up to D (such as 30s) for the state lock
  --no-color            Print no colours
`

// errHelp is returned by parse after printing a command's help.
var errHelp = errors.New("help printed")

// flagSet makes the flag set of a command: Go's own usage dump and error
// printing are replaced by the command's help and one Error line.
func (e *env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError reports a failed parse and returns the exit code: 0 when the
// user asked for help (which was printed), 1 otherwise.
func (e *env) flagError(fs *flag.FlagSet, err error) int {
	if errors.Is(err, errHelp) || errors.Is(err, flag.ErrHelp) {
		e.printHelp(fs.Name())
		return 0
	}
	fmt.Fprintf(e.stderr, "Error: %s\n\nRun \"tether %s --help\" to see its options.\n", flagMessage(err), fs.Name())
	return 1
}

func (e *env) printHelp(name string) {
	if h, ok := help[name]; ok {
		fmt.Fprint(e.stdout, h)
		return
	}
	if h, ok := help[strings.Fields(name)[0]]; ok {
		fmt.Fprint(e.stdout, h)
		return
	}
	usage(e.stdout)
}

// flagMessage turns the flag package's messages into sentences.
func flagMessage(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("unknown option %s", rest)
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("the option %s needs a value", rest)
	}
	if strings.HasPrefix(msg, "invalid value ") || strings.HasPrefix(msg, "invalid boolean value ") {
		// invalid value "x" for flag -var: REASON
		if i := strings.Index(msg, " for flag "); i >= 0 {
			rest := msg[i+len(" for flag "):]
			flagName, reason, _ := strings.Cut(rest, ": ")
			value := msg[strings.Index(msg, "value ")+len("value ") : i]
			return fmt.Sprintf("invalid value %s for the option %s: %s", value, flagName, reason)
		}
	}
	return msg
}

// noArgs refuses words a command does not take: a word after a command
// that takes none is a mistake (a resource address given to destroy, say),
// and ignoring it would do something other than what was asked.
func (e *env) noArgs(name string, pos []string) bool {
	if len(pos) == 0 {
		return true
	}
	hint := ""
	switch name {
	case "up", "apply":
		hint = " up takes at most one argument, a saved plan file (tether plan -out FILE); to narrow the plan to a resource, use -target ADDRESS."
	case "destroy", "plan":
		hint = " To narrow it to a resource and what depends on it, use -target ADDRESS."
	}
	fmt.Fprintf(e.stderr, "Error: tether %s takes no arguments, but was given %q.%s\n\nRun \"tether %s --help\" to see its options.\n",
		name, strings.Join(pos, " "), hint, name)
	return false
}
