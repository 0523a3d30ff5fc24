package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/ui"
)

// console evaluates expressions read from stdin, a line each, against the
// configuration and state, as terraform console does: resources have the
// values state records (planned values where the configuration would
// change them). Off a terminal it reads to the end of its input, so that
// `echo 'upper("a")' | tether console` works in a script.
func (e *env) console(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("console", &c)
	e.lockFlag(fs, &c)
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	s, ok := e.open(ctx, &c, "console")
	if !ok {
		return 1
	}
	defer s.close()
	if s.cfg.Evaluate == nil {
		return e.errorf("console evaluates expressions of the Terraform language: the configuration here is a Go program, which has none")
	}
	planned, diags := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{SkipRefresh: true})
	e.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	scope := consoleScope{planned.RootScope()}
	in := bufio.NewScanner(e.stdin)
	in.Buffer(make([]byte, 64*1024), 1<<20)
	code := 0
	for {
		if e.stdinTTY {
			fmt.Fprint(e.stdout, "> ")
		}
		if !in.Scan() {
			break
		}
		line := strings.TrimSpace(in.Text())
		switch line {
		case "":
			continue
		case "exit":
			return code
		}
		v, d := s.cfg.Evaluate(line, scope)
		// An error may quote a sensitive value it was given
		// (tonumber(var.password)): scrubbed as plan scrubs its own.
		d = planned.ScrubSecrets(d)
		if len(d) > 0 {
			srcs := map[string][]byte{"<console-input>": []byte(line)}
			for name, src := range s.cfg.Sources {
				srcs[name] = src
			}
			ui.WriteDiagnostics(e.stderr, d, srcs, e.color)
		}
		if d.HasErrors() {
			code = 1
			continue
		}
		fmt.Fprintln(e.stdout, ui.FormatConsole(v, 0))
	}
	if err := in.Err(); err != nil {
		return e.errorf("reading standard input: %v", err)
	}
	if e.stdinTTY {
		fmt.Fprintln(e.stdout)
	}
	return code
}

// consoleScope evaluates as Terraform's console does: timestamp() and
// uuid() give values, since nothing is planned from them, and
// plantimestamp() has no plan to tell of (unknown).
type consoleScope struct{ config.Scope }

func (consoleScope) Run() config.Run { return config.Run{Applying: true} }
