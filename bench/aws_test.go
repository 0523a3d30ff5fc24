package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/providertest"
)

func TestMain(m *testing.M) {
	if real := os.Getenv(wrapRealEnv); real != "" {
		// The test binary standing in for the AWS provider.
		os.Exit(wrapProvider(real, os.Getenv(wrapLogEnv)))
	}
	os.Exit(m.Run())
}

// TestAWSPlanSmoke runs the aws-plan shape at one pair with tether alone:
// init, plan, and the plan with the provider's logging off, each with the
// provider's rusage and no connection attempted. It needs the AWS provider
// in one of the usual filesystem mirrors, and takes a build of tether and
// a few seconds of the provider's start, so -short skips it.
func TestAWSPlanSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tether and starts the AWS provider")
	}
	if _, ok := findAWSProviderIn(awsMirrorDirs()); !ok {
		t.Skip("hashicorp/aws 5.x is in none of the usual filesystem mirrors")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// The build is shared with the other packages' tests.
	bin, err := providertest.GoBuild("./cmd/tether")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{root: root, tmp: tmp, tetherBin: bin, runs: 1, perFile: 1000, timeout: 2 * time.Minute,
		tools: []*tool{newTether(bin, 0)}}
	s, err := h.prepareAWS()
	if err != nil {
		t.Fatal(err)
	}
	defer s.trap.close()
	if !s.wrapped {
		t.Fatal("the provider wrapper was not put in place")
	}
	c := h.runAWSCase(context.Background(), s, 1)
	for _, step := range []string{awsInit, awsPlan, awsAgain, awsQuiet} {
		m, ok := c.get("tether", step)
		if !ok || !m.ok() {
			t.Fatalf("%s: %+v", step, m)
		}
		if m.Net != 0 {
			t.Errorf("%s: %d connection attempts, want none", step, m.Net)
		}
		if step == awsInit {
			continue
		}
		if len(m.Providers) != 1 || m.providerCPU() <= 0 {
			t.Errorf("%s: provider runs %+v, want one with CPU time", step, m.Providers)
		}
		if treeSampling && (m.MaxRSS < m.ToolPeak || m.ProviderPeak <= 0) {
			t.Errorf("%s: peak %d, tool %d, provider %d", step, m.MaxRSS, m.ToolPeak, m.ProviderPeak)
		}
	}
	if f := c.floor(2); f <= 0 {
		t.Errorf("floor %v", f)
	}
}
