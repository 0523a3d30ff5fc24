package providercheck

import "testing"

// Scenario is one story of a provider's behaviour, written once against a
// Harness so that it can run against every transport.
type Scenario struct {
	Name string
	Run  func(t *testing.T, h *Harness)
}

// Run runs each scenario as a subtest named after it, with a Harness that
// start makes for that subtest.
func Run(t *testing.T, start func(t *testing.T) *Harness, scenarios ...Scenario) {
	t.Helper()
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			s.Run(t, start(t))
		})
	}
}
