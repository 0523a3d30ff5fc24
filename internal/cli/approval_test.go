package cli

import (
	"bytes"
	"strings"
	"testing"
)

// A deferred round that destroys or replaces what the approved plan could
// not show asks again on a terminal; "no" leaves what it would destroy.
func TestDeferredRoundAsksAgain(t *testing.T) {
	run := upIn(t, `
variable "v" {}
resource "tether_random" "r" {
  length  = 6
  keepers = { v = var.v }
}
resource "tether_value" "named" {
  for_each = toset([tether_random.r.result])
  input    = each.key
}
`)
	list := func() string {
		var out bytes.Buffer
		if code := Main([]string{"state", "list"}, nil, &out, &out); code != 0 {
			t.Fatalf("state list: %s", out.String())
		}
		return out.String()
	}
	if code, out, errs := run("", false, "--yes", "-var", "v=1"); code != 0 {
		t.Fatalf("first up: %d\n%s\n%s", code, out, errs)
	}
	before := list()

	// v=2 replaces the random string; the instance keyed by the old one
	// is destroyed only in the deferred round, which the first plan
	// could not show.
	code, out, errs := run("yes\nno\n", true, "-var", "v=2")
	if code != 1 || !strings.Contains(out, "This round destroys or replaces objects that the plan you approved did not show") || !strings.Contains(errs, "cancelled") {
		t.Fatalf("up answered yes then no: exit %d\n%s\n%s", code, out, errs)
	}
	after := list()
	for _, line := range strings.Split(strings.TrimSpace(before), "\n") {
		if strings.HasPrefix(line, "tether_value.named") && !strings.Contains(after, line) {
			t.Errorf("%s was destroyed though the round was refused:\n%s", line, after)
		}
	}

	// With --yes, every round proceeds without asking.
	code, out, errs = run("", false, "--yes", "-var", "v=3")
	if code != 0 || strings.Contains(out, "Enter a value") {
		t.Fatalf("up --yes: exit %d\n%s\n%s", code, out, errs)
	}
	if got := strings.Count(list(), "tether_value.named"); got != 1 {
		t.Errorf("after up --yes, %d instances of tether_value.named, want 1:\n%s", got, list())
	}
}
