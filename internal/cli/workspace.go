package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/backend"
)

// workspace runs `tether workspace new|select|list|show|delete`, with
// Terraform's names, messages and rules: default always exists and cannot
// be deleted, the workspace in use cannot be deleted, one that records
// resources is deleted only with -force, and TF_WORKSPACE overrides the
// selection.
func (e *env) workspace(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		e.printHelp("workspace")
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	sub := args[0]
	fs := e.flags("workspace "+sub, nil)
	dir := fs.String("C", ".", "configuration folder")
	force, orCreate := new(bool), new(bool)
	if sub == "delete" {
		fs.BoolVar(force, "force", false, "delete a workspace that still records resources, forgetting them")
	}
	if sub == "select" {
		fs.BoolVar(orCreate, "or-create", false, "create the workspace when it does not exist")
	}
	pos, err := parse(fs, args[1:])
	if err != nil {
		return e.flagError(fs, err)
	}
	want := 1
	if sub == "list" || sub == "show" {
		want = 0
	}
	switch sub {
	case "new", "select", "list", "show", "delete":
	default:
		return e.errorf("unknown workspace subcommand %q: use new, select, list, show or delete", sub)
	}
	if len(pos) != want {
		if want == 0 {
			return e.errorf("workspace %s takes no arguments", sub)
		}
		return e.errorf("workspace %s takes one workspace name, e.g. tether workspace %s staging", sub, sub)
	}
	if *dir != "." {
		if err := os.Chdir(*dir); err != nil {
			return e.errorf("cannot use -C %s: %v", *dir, err)
		}
	}
	current, ok := e.selectedWorkspace()
	if !ok {
		return 1
	}
	if sub == "show" {
		fmt.Fprintln(e.stdout, current)
		return 0
	}
	b, ok := e.openBackend(ctx, nil)
	if !ok {
		return 1
	}
	defer b.Close()
	switch sub {
	case "list":
		names, err := b.Workspaces(ctx)
		if err != nil {
			return e.errorf("%v", err)
		}
		for _, n := range names {
			mark := "  "
			if n == current {
				mark = "* "
			}
			fmt.Fprintln(e.stdout, mark+n)
		}
		fmt.Fprintln(e.stdout)
		return 0
	case "new":
		return e.newWorkspace(ctx, b, pos[0])
	case "select":
		name := pos[0]
		if os.Getenv("TF_WORKSPACE") != "" {
			return e.errorf("the selected workspace is currently overridden using the TF_WORKSPACE environment variable; to select a new workspace, either update this environment variable or unset it and then run this command again")
		}
		if err := backend.CheckName(name); err != nil {
			return e.errorf("%v", err)
		}
		ok, err := b.HasWorkspace(ctx, name)
		if err != nil {
			return e.errorf("%v", err)
		}
		if !ok && *orCreate {
			return e.newWorkspace(ctx, b, name)
		}
		if !ok {
			return e.errorf("Workspace %q doesn't exist.\n\nYou can create this workspace with the \"new\" subcommand, or select it with -or-create.", name)
		}
		if err := backend.Select(stateDir, name); err != nil {
			return e.errorf("%v", err)
		}
		fmt.Fprintf(e.stdout, "Switched to workspace %q.\n", name)
		return 0
	case "delete":
		name := pos[0]
		if name == current {
			return e.errorf("Workspace %q is your active workspace.\n\nYou cannot delete the currently active workspace. Please switch\nto another workspace and try again.", name)
		}
		if name == backend.DefaultWorkspace {
			return e.errorf("Can't delete default state: the default workspace always exists")
		}
		if err := b.DeleteWorkspace(ctx, name, *force); err != nil {
			return e.errorf("%v", err)
		}
		fmt.Fprintf(e.stdout, "Deleted workspace %q!\n", name)
		return 0
	}
	return 1
}

// newWorkspace creates workspace name and selects it (unless TF_WORKSPACE
// chooses), as workspace new and select -or-create do.
func (e *env) newWorkspace(ctx context.Context, b *backend.Backend, name string) int {
	if err := b.NewWorkspace(ctx, name); err != nil {
		if errors.Is(err, backend.ErrWorkspaceExists) {
			return e.errorf("Workspace %q already exists", name)
		}
		return e.errorf("%v", err)
	}
	if os.Getenv("TF_WORKSPACE") == "" {
		if err := backend.Select(stateDir, name); err != nil {
			return e.errorf("%v", err)
		}
	}
	fmt.Fprintf(e.stdout, "Created and switched to workspace %q!\n\nYou're now on a new, empty workspace. Workspaces isolate their state,\nso if you run \"tether plan\" Tether will not see any existing state\nfor this configuration.\n", name)
	return 0
}
