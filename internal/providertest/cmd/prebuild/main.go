package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/providertest"
)

func main() {
	failed := false
	for _, name := range providertest.Names() {
		p, err := providertest.Build(name)
		if errors.Is(err, providertest.ErrNoProxy) {
			fmt.Fprintf(os.Stderr, "%v\n(the tests that need it will skip)\n", err)
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		fmt.Printf("%s %s: %s\n", p.Source.ForDisplay(), p.Version, p.Executable)
	}
	switch exe, err := providertest.BuildLambdaEmulator(); {
	case errors.Is(err, providertest.ErrNoProxy):
		fmt.Fprintf(os.Stderr, "%v\n(the tests that need it will skip)\n", err)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		failed = true
	default:
		fmt.Printf("aws-lambda-rie: %s\n", exe)
	}
	if failed {
		os.Exit(1)
	}
}
