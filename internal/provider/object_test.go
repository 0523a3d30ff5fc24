package provider

import (
	"context"
	"testing"
)

// TestWithObject checks that a context names the object last given, and
// that naming the object it already names makes no new context: an
// instance's context is made once for all of its provider calls, with one
// allocation.
func TestWithObject(t *testing.T) {
	base := context.Background()
	if got := ObjectFrom(base); got != "" {
		t.Errorf("a context with no object names %q", got)
	}
	a := WithObject(base, "tether_value.a")
	if got := ObjectFrom(a); got != "tether_value.a" {
		t.Errorf("ObjectFrom = %q, want tether_value.a", got)
	}
	if again := WithObject(a, "tether_value.a"); again != a {
		t.Errorf("naming the same object again made a new context")
	}
	if n := testing.AllocsPerRun(10, func() { WithObject(a, "tether_value.a") }); n != 0 {
		t.Errorf("naming the same object again made %v allocations", n)
	}
	if n := testing.AllocsPerRun(10, func() { WithObject(a, "data.tether_file.b") }); n > 1 {
		t.Errorf("naming another object made %v allocations, want one", n)
	}
	b := WithObject(a, "data.tether_file.b")
	if got := ObjectFrom(b); got != "data.tether_file.b" {
		t.Errorf("ObjectFrom = %q, want data.tether_file.b", got)
	}
	if got := ObjectFrom(WithObject(b, "tether_value.a")); got != "tether_value.a" {
		t.Errorf("ObjectFrom = %q after naming tether_value.a again, want it", got)
	}
	// What else the context carries, and its cancellation, pass through.
	type other struct{}
	parent, cancel := context.WithCancel(context.WithValue(base, other{}, "x"))
	c := WithObject(parent, "tether_value.c")
	if got := c.Value(other{}); got != "x" {
		t.Errorf("another value through an object's context = %v, want x", got)
	}
	cancel()
	if c.Err() == nil {
		t.Errorf("an object's context is not cancelled with its parent")
	}
}

// TestObjectContextWith checks that a context made in an ObjectContext
// names its object as WithObject's does, without an allocation.
func TestObjectContextWith(t *testing.T) {
	base := context.Background()
	var o ObjectContext
	c := o.With(base, "tether_value.a")
	if got := ObjectFrom(c); got != "tether_value.a" {
		t.Errorf("ObjectFrom = %q, want tether_value.a", got)
	}
	if again := o.With(c, "tether_value.a"); again != c {
		t.Errorf("naming the same object again made a new context")
	}
	var other ObjectContext
	if n := testing.AllocsPerRun(10, func() { other.With(base, "data.tether_file.b") }); n != 0 {
		t.Errorf("naming an object made %v allocations, want none", n)
	}
}
