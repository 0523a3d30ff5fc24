package cli

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"sort"
	"strings"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/state"
)

// editState takes the state's lock for a command that edits it and loads
// state under the lock. On failure it has printed why.
func (e *env) editState(ctx context.Context, store state.Store, op string) (state.Unlocker, *state.Snapshot, bool) {
	unlock, ok := e.lockForEdit(ctx, store, op)
	if !ok {
		return nil, nil, false
	}
	snap, err := store.Load(ctx)
	if err != nil {
		unlock.Unlock()
		e.errorf("%v", err)
		return nil, nil, false
	}
	return unlock, snap, true
}

// lockForEdit takes the state's lock for a command that edits it.
func (e *env) lockForEdit(ctx context.Context, store state.Store, op string) (state.Unlocker, bool) {
	host, _ := os.Hostname()
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	unlock, err := store.Lock(ctx, state.LockInfo{Operation: op, Who: who + "@" + host, Host: host, PID: os.Getpid(), Created: time.Now()})
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	return unlock, true
}

// stateList prints the recorded objects, or those under the given
// addresses.
func (e *env) stateList(snap *state.Snapshot, filters []string) int {
	for _, f := range filters {
		if _, err := addr.ParseInstance(f); err != nil && !addr.IsModule(f) {
			return e.errorf("%q is not a resource or module address: %v", f, err)
		}
	}
	// Terraform's order: the root module's instances first, data sources
	// before managed resources (addr.Less).
	listed := sortedKeys(snap.Objects)
	sort.SliceStable(listed, func(i, j int) bool { return addr.Less(listed[i], listed[j]) })
	for _, a := range listed {
		if len(filters) == 0 || anyMatch(a, filters) {
			fmt.Fprintln(e.stdout, a)
		}
	}
	return 0
}

func anyMatch(a string, filters []string) bool {
	for _, f := range filters {
		if addr.Covers(f, a) {
			return true
		}
	}
	return false
}

// stateRemove forgets objects without destroying them.
func (e *env) stateRemove(ctx context.Context, store state.Store, given []string, dryRun bool) int {
	if len(given) == 0 {
		return e.errorf("state rm needs at least one address, e.g. tether_file.a")
	}
	unlock, snap, ok := e.editState(ctx, store, "state rm")
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	var gone []string
	for _, g := range given {
		n := 0
		for _, a := range sortedKeys(snap.Objects) {
			if addr.Covers(g, a) {
				gone = append(gone, a)
				n++
			}
		}
		if n == 0 {
			return e.errorf("no object in state matches %s; nothing was removed. Recorded: %s", g, strings.Join(sortedKeys(snap.Objects), ", "))
		}
	}
	gone = dedupe(gone)
	verb := "Removed"
	if dryRun {
		verb = "Would remove"
	} else if err := store.Commit(ctx, state.Changes{Delete: gone}); err != nil {
		return e.errorf("%v", err)
	}
	for _, a := range gone {
		fmt.Fprintf(e.stdout, "%s %s\n", verb, a)
	}
	if !dryRun {
		fmt.Fprintf(e.stdout, "Successfully removed %d resource instance(s).\n", len(gone))
	}
	return 0
}

// stateMove records objects under new addresses: one instance, every
// instance of a resource, or everything in a module instance.
func (e *env) stateMove(ctx context.Context, store state.Store, pos []string, dryRun bool) int {
	if len(pos) != 2 {
		return e.errorf("state mv takes a source and a destination address, e.g. tether_file.a tether_file.b")
	}
	from, to := pos[0], pos[1]
	unlock, snap, ok := e.editState(ctx, store, "state mv")
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	moves, err := planMoves(snap, from, to)
	if err != nil {
		return e.errorf("cannot move %s to %s: %v", from, to, err)
	}
	var ch state.Changes
	for _, m := range moves {
		obj := *snap.Objects[m[0]]
		obj.Address = m[1]
		ch.Put = append(ch.Put, &obj)
		ch.Delete = append(ch.Delete, m[0])
	}
	if !dryRun {
		if err := store.Commit(ctx, ch); err != nil {
			return e.errorf("%v", err)
		}
	}
	for _, m := range moves {
		if dryRun {
			fmt.Fprintf(e.stdout, "Would move %q to %q\n", m[0], m[1])
		} else {
			fmt.Fprintf(e.stdout, "Move %q to %q\n", m[0], m[1])
		}
	}
	if !dryRun {
		fmt.Fprintf(e.stdout, "Successfully moved %d object(s).\n", len(moves))
	}
	return 0
}

// planMoves pairs each object under from with its address under to.
func planMoves(snap *state.Snapshot, from, to string) ([][2]string, error) {
	var moves [][2]string
	for _, a := range sortedKeys(snap.Objects) {
		if !addr.Covers(from, a) {
			continue
		}
		moves = append(moves, [2]string{a, to + a[len(from):]})
	}
	if len(moves) == 0 {
		return nil, fmt.Errorf("no object in state matches %s", from)
	}
	fromModule, toModule := addr.IsModule(from), addr.IsModule(to)
	if fromModule != toModule {
		return nil, fmt.Errorf("a module can move only to a module address, and a resource only to a resource address")
	}
	if !fromModule {
		if _, err := addr.ParseInstance(to); err != nil {
			return nil, fmt.Errorf("%s is not a resource address: %v", to, err)
		}
		// A resource keeps its type: its object is the provider's object
		// of that type, which a rename cannot convert.
		fromParts, toParts := addr.Split(from), addr.Split(to)
		if ft, tt := fromParts[len(fromParts)-2], toParts[len(toParts)-2]; ft != tt {
			return nil, fmt.Errorf("the resource types differ (%s and %s); an object keeps its type", ft, tt)
		}
	}
	moving := map[string]bool{}
	for _, m := range moves {
		moving[m[0]] = true
	}
	for _, m := range moves {
		if _, exists := snap.Objects[m[1]]; exists && !moving[m[1]] {
			return nil, fmt.Errorf("%s is already recorded; remove it first or choose another address", m[1])
		}
		if _, err := addr.ParseInstance(m[1]); err != nil {
			return nil, fmt.Errorf("%s is not a valid address: %v", m[1], err)
		}
	}
	return moves, nil
}

func dedupe(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || list[i-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// taint marks one object to be replaced by the next up, or (untaint)
// clears that mark.
func (e *env) taint(ctx context.Context, args []string, tainted bool) int {
	name := "taint"
	if !tainted {
		name = "untaint"
	}
	fs := e.flags(name, nil)
	dir := fs.String("C", ".", "configuration folder")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) != 1 {
		return e.errorf("%s takes one resource instance address, e.g. tether_file.a or tether_file.b[0]", name)
	}
	store, ok := e.openState(*dir)
	if !ok {
		return 1
	}
	defer store.Close()
	unlock, snap, ok := e.editState(ctx, store, name)
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	obj, ok := snap.Objects[pos[0]]
	if !ok || obj.Mode != state.Managed {
		return e.errorf("no managed resource instance at %s in state. Recorded: %s", pos[0], strings.Join(sortedKeys(snap.Objects), ", "))
	}
	want := state.Ready
	if tainted {
		want = state.Tainted
	}
	if obj.Status == want {
		if tainted {
			fmt.Fprintf(e.stdout, "Resource instance %s is already tainted.\n", pos[0])
		} else {
			return e.errorf("resource instance %s is not tainted", pos[0])
		}
		return 0
	}
	changed := *obj
	changed.Status = want
	if err := store.Commit(ctx, state.Changes{Put: []*state.Object{&changed}}); err != nil {
		return e.errorf("%v", err)
	}
	if tainted {
		fmt.Fprintf(e.stdout, "Resource instance %s has been marked as tainted.\n", pos[0])
	} else {
		fmt.Fprintf(e.stdout, "Resource instance %s has been successfully untainted.\n", pos[0])
	}
	return 0
}

// stateReplaceProvider records the objects of provider FROM as objects of
// provider TO, as terraform state replace-provider does: for a provider
// that moved to another namespace or registry host (a fork, a private
// mirror of it). It asks first, unless -auto-approve.
func (e *env) stateReplaceProvider(ctx context.Context, store state.Store, pos []string, yes bool) int {
	if len(pos) != 2 {
		return e.errorf("state replace-provider takes the provider to replace and its replacement, e.g. hashicorp/aws registry.example.com/acme/aws")
	}
	var sources [2]tfaddr.Provider
	for i, s := range pos {
		p, err := tfaddr.ParseProviderSource(s)
		if err != nil {
			return e.errorf("%q is not a provider source address: %v", s, err)
		}
		sources[i] = p
	}
	from, to := sources[0], sources[1]
	unlock, snap, ok := e.editState(ctx, store, "state replace-provider")
	if !ok {
		return 1
	}
	defer unlock.Unlock()
	var ch state.Changes
	for _, a := range sortedKeys(snap.Objects) {
		obj := *snap.Objects[a]
		pc, err := addr.ParseProviderConfig(obj.Provider)
		if err != nil {
			return e.errorf("%s: %v", a, err)
		}
		if !pc.Source.Equals(from) {
			continue
		}
		pc.Source = to
		obj.Provider = pc.String()
		ch.Put = append(ch.Put, &obj)
	}
	if len(ch.Put) == 0 {
		fmt.Fprintln(e.stdout, "No matching resources found.")
		return 0
	}
	fmt.Fprintf(e.stdout, "Tether will perform the following actions:\n\n  ~ Updating provider:\n    - %s\n    + %s\n\nChanging %d resources:\n\n", from, to, len(ch.Put))
	for _, obj := range ch.Put {
		fmt.Fprintf(e.stdout, "  %s\n", obj.Address)
	}
	if !yes {
		if !e.stdinTTY {
			return e.errorf("refusing to replace the provider: stdin is not a terminal, so nobody can confirm. Run again with -auto-approve to replace it without asking")
		}
		if !e.answeredYes("\nDo you want to make these changes?\nOnly 'yes' will be accepted to continue.\n\nEnter a value: ") {
			return e.errorf("cancelled: the answer was not 'yes'; state was left as it was")
		}
	}
	if err := store.Commit(ctx, ch); err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintf(e.stdout, "\nSuccessfully replaced provider for %d resources.\n", len(ch.Put))
	return 0
}
