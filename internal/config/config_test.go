package config

import (
	"testing"
	"unsafe"
)

// TestHeldSizes checks the size of what a configuration holds for each of
// its resources for a whole run: a Node, and the Syntax of a resource,
// whose fields for the other kinds are apart (SyntaxDecl). A field added
// or moved past a size class costs every resource of a large run. (The
// HCL front-end makes a resource's Node inside a larger whole: see
// hclconfig's TestResourceNodeSize.)
func TestHeldSizes(t *testing.T) {
	if got := unsafe.Sizeof(Node{}); got > 432 {
		t.Errorf("a Node is %d bytes, more than 432", got)
	}
	if got := unsafe.Sizeof(Syntax{}); got > 48 {
		t.Errorf("a Syntax is %d bytes, more than 48", got)
	}
}
