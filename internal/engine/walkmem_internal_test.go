package engine

import (
	"testing"
	"unsafe"
)

// TestOwners checks that each instance is found with its node instance
// whether a node has one module instance (no map is made) or several.
func TestOwners(t *testing.T) {
	a, b := &nodeInst{}, &nodeInst{}
	ins := []*instance{{addr: "a0"}, {addr: "b0"}, {addr: "a1"}, {addr: "b1"}}
	want := []*nodeInst{a, b, a, b}
	var o owners
	o.add(ins[0], a)
	if o.by != nil {
		t.Error("one node instance made a map")
	}
	for i := 1; i < len(ins); i++ {
		o.add(ins[i], want[i])
	}
	for i, in := range ins {
		if got := o.of(in); got != want[i] {
			t.Errorf("instance %s: got node instance %p, want %p", in.addr, got, want[i])
		}
	}
}

// TestInstanceSize keeps an instance, one per resource instance of a run
// and held for the whole of it, within the allocator's 640-byte class
// (it was 688 bytes, in the 704-byte class: 6 MB more at 100,000).
func TestInstanceSize(t *testing.T) {
	if n := unsafe.Sizeof(instance{}); n > 640 {
		t.Errorf("an instance takes %d bytes, want at most 640", n)
	}
}
