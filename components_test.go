package tether_test

import (
	"testing"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

// TestReferencesAcrossComponents: values flow between sibling components
// and out of nested ones, not only between a component and its parent.
func TestReferencesAcrossComponents(t *testing.T) {
	p := newProgram(t)
	build := func(s *tether.Stack) error {
		a := tether.NewComponent(s, "a")
		b := tether.NewComponent(s, "b")
		inner := tether.NewComponent(a, "inner")
		fa := builtin.NewFile(a, "f", builtin.FileArgs{Path: "a.txt", Content: "a"})
		fi := builtin.NewFile(inner, "f", builtin.FileArgs{Path: "i.txt", Content: "i"})
		builtin.NewFile(b, "sibling", builtin.FileArgs{Path: "b.txt", Content: fa.Sha256().String()})
		builtin.NewFile(s, "grandchild", builtin.FileArgs{Path: "r.txt", Content: fi.Sha256().String()})
		builtin.NewFile(b, "cousin", builtin.FileArgs{Path: "c.txt", Content: fi.Sha256().String()})
		return nil
	}
	code, _, stderr := p.run(build, "up", "--yes")
	if code != 0 {
		t.Fatalf("up exited %d:\n%s", code, stderr)
	}
	const shaA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	const shaI = "de7d1b721a1e0632b7cf04edf5032c8ecffa9f9a08492152b926f1a5a7e765d7"
	for file, want := range map[string]string{"b.txt": shaA, "r.txt": shaI, "c.txt": shaI} {
		if got := p.read(file); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	p.must(0, build, "plan", "--detailed-exitcode")
}
