// Package scripts holds the tether command's scenarios (TestScripts):
// each testdata/script/*.txtar is a folder of configuration and the
// commands a user would type, with what they must see. Run one with
// `go test ./cmd/tether/scripts -run 'TestScripts/NAME$'`. Those with
// providers run as plugins are in cmd/tether/providers. It also holds the
// command's tests on a real terminal (TestLiveViewInTmux) and on a closed
// output (TestLockReleasedWhenOutputGoesAway).
package scripts
