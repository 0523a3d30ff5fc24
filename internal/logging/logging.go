package logging

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/tetherhq/tether/internal/redact"
)

var (
	mu       sync.Mutex
	core     hclog.Logger = hclog.NewNullLogger()
	provider hclog.Logger = hclog.NewNullLogger()
	out      io.Closer
	// secrets are the values the engine resolved for provider calls,
	// taken out of the providers' log lines.
	secrets redact.Set
)

// Redact has every later provider log line written with secret, whole,
// encoded, digested or in part (see package redact), replaced by label.
// The engine calls it for each value it resolves for a provider: a
// provider's log is its own words, and may repeat what it was given.
func Redact(secret, label string) { secrets.Add(secret, label) }

// redacting is the provider log's writer. hclog writes each line with
// one call, so each Write is a whole line.
type redacting struct{ w io.Writer }

func (r redacting) Write(p []byte) (int, error) {
	if secrets.Empty() {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, secrets.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Setup reads the log variables from environ and opens the log. The
// returned function closes it. A file that cannot be opened is an error
// naming it; an unknown level logs everything, as in Terraform, after a
// warning on stderr.
func Setup(environ []string, stderr io.Writer) (func(), error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TF_LOG") {
			env[k] = v
		}
	}
	warn := func(err error) {
		if err != nil {
			fmt.Fprintf(stderr, "Warning: %v\n", err)
		}
	}
	coreLevel, coreJSON, err := level("TF_LOG", env["TF_LOG"])
	warn(err)
	if v, ok := env["TF_LOG_CORE"]; ok {
		coreLevel, coreJSON, err = level("TF_LOG_CORE", v)
		warn(err)
	}
	provLevel, provJSON, err := level("TF_LOG_PROVIDER", env["TF_LOG_PROVIDER"])
	warn(err)
	if coreLevel == hclog.Off && provLevel == hclog.Off {
		return func() {}, nil
	}
	var w io.Writer = stderr
	var closer io.Closer
	if path := env["TF_LOG_PATH"]; path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("cannot open the log file TF_LOG_PATH=%s: %w", path, err)
		}
		w, closer = f, f
	}
	mu.Lock()
	defer mu.Unlock()
	core = hclog.New(&hclog.LoggerOptions{Name: "tether", Level: coreLevel, Output: w, JSONFormat: coreJSON})
	provider = hclog.New(&hclog.LoggerOptions{Name: "provider", Level: provLevel, Output: redacting{w}, JSONFormat: provJSON})
	out = closer
	return func() {
		mu.Lock()
		defer mu.Unlock()
		core, provider = hclog.NewNullLogger(), hclog.NewNullLogger()
		if out != nil {
			out.Close()
			out = nil
		}
	}, nil
}

func level(name, v string) (hclog.Level, bool, error) {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "", "OFF":
		return hclog.Off, false, nil
	case "JSON":
		return hclog.Trace, true, nil
	}
	l := hclog.LevelFromString(v)
	if l == hclog.NoLevel {
		// As Terraform: any other value asks for everything.
		return hclog.Trace, false, fmt.Errorf("%s=%s is not a log level (TRACE, DEBUG, INFO, WARN, ERROR, JSON or OFF): logging at TRACE", name, v)
	}
	return l, false, nil
}

// Core is Tether's own logger.
func Core() hclog.Logger {
	mu.Lock()
	defer mu.Unlock()
	return core
}

// ProvidersLogged says whether providers' logs go anywhere: whether
// TF_LOG_PROVIDER asked for them. When they do not, a provider plugin
// should be told not to write them, rather than format lines for the
// client to drop.
func ProvidersLogged() bool {
	mu.Lock()
	defer mu.Unlock()
	return provider.GetLevel() != hclog.Off && provider.GetLevel() != hclog.NoLevel
}

// Provider is the logger providers' logs go to.
func Provider() hclog.Logger {
	mu.Lock()
	defer mu.Unlock()
	return provider
}
