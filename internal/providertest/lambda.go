package providertest

import (
	"errors"
	"path/filepath"
	"testing"
)

// The AWS Lambda Runtime Interface Emulator, built from the module proxy.
const (
	rieModule  = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"
	rieVersion = "v0.0.0-20261030222936-bef5c4ba774d"
)

// BuildLambdaEmulator returns the path of aws-lambda-rie, the AWS Lambda
// Runtime Interface Emulator, built with `go install` into
// CacheDir()/aws-lambda-rie/VERSION the first time, as Build builds
// providers.
func BuildLambdaEmulator() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "aws-lambda-rie", rieVersion)
	exe := filepath.Join(dir, "aws-lambda-rie")
	return exe, install(dir, exe, rieModule, rieVersion, Platform())
}

// LambdaEmulator is BuildLambdaEmulator for a test, which it skips when
// the module proxy is missing.
func LambdaEmulator(t testing.TB) string {
	t.Helper()
	exe, err := BuildLambdaEmulator()
	if errors.Is(err, ErrNoProxy) {
		t.Skipf("cannot build the Lambda runtime interface emulator: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
