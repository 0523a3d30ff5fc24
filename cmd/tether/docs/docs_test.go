package docs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestDocs runs the shell blocks of README.md and docs/*.md, so that the
// documentation cannot rot: a command a page shows is a command that
// works.
//
// For writers of those pages, the conventions:
//
//   - A fenced block labelled sh is run. Any other (text, hcl, go, one
//     with no label) is an illustration and is not.
//   - An HTML comment on the line before a sh block changes that:
//     `<!-- doctest: skip (REASON) -->` leaves the block out, with the
//     reason in the test's log; `<!-- doctest: covered-by PATH NAME
//     (REASON) -->` says that test NAME in PATH (or the testscript file
//     PATH) runs the block's commands, which this test checks exists;
//     `<!-- doctest: in-repo (REASON) -->` runs the block in the
//     repository itself, for a command that builds one of its packages
//     (such a block must write only under $HOME).
//   - Blocks whose commands run terraform are skipped, saying so, when
//     terraform is not on the PATH.
//
// Each page runs on its own: its blocks in order, each in a bash of its
// own (`set -euo pipefail`, started in the page's work folder), all
// sharing that folder and a HOME of the page's own. The work folder
// stands for a clone of this repository: it holds a fresh copy of
// examples/ (a Go example with a go.mod pointing at this repository, as
// the other tests build them), and TETHER is the repository's path. A
// block's lines are run as written but for these rewrites, which make
// the test cheap and keep it off the network:
//
//   - `go run ./cmd/tether` is `tether`, this test binary serving as the
//     command (as in cmd/tether's testscripts), and `go install
//     ./cmd/tether` is left out: tether is on the PATH already;
//   - `TETHER=$PWD` is left out: the clone is this repository;
//   - a `go test` line is left out: it runs the suite this test is in;
//   - curl is `curl -fsS`, so that an HTTP error fails the block.
//
// Lines inside a here-document are never rewritten. The go command works
// offline from the module cache; terraform runs with no CLI configuration
// but what a block writes, and no checkpoint call. Processes a failed
// block left running are stopped when the page ends.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("deploys the examples the pages show")
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the pages' blocks are bash")
	}
	tether, err := exec.LookPath("tether")
	if err != nil {
		t.Fatalf("testscript puts this test binary on the PATH as tether: %v", err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(repo, "README.md")}, pages...)
	_, terraformErr := exec.LookPath("terraform")
	var goEnv []string
	for _, page := range pages {
		rel, _ := filepath.Rel(repo, page)
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := shellBlocks(rel, string(text))
		if err != nil {
			t.Fatal(err)
		}
		var run []docBlock
		for _, b := range blocks {
			switch b.directive {
			case "skip":
				t.Logf("%s: not run: %s", b.pos, b.arg)
			case "covered-by":
				if err := docCoveredBy(repo, b.arg); err != nil {
					t.Errorf("%s: %v", b.pos, err)
				}
			default:
				run = append(run, b)
			}
		}
		if len(run) == 0 {
			continue
		}
		if goEnv == nil {
			goEnv = docsGoEnv(t)
		}
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			work, home := filepath.Join(root, "clone"), filepath.Join(root, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			examples, err := os.ReadDir(filepath.Join(repo, "examples"))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range examples {
				if e.IsDir() {
					e2e.CopyExampleTo(t, e.Name(), filepath.Join(work, "examples", e.Name()))
				}
			}
			t.Cleanup(func() { e2e.KillLeftovers(root) })
			env := docsEnv(home, repo, goEnv)
			for i, b := range run {
				script, needsTerraform := b.script()
				if needsTerraform && terraformErr != nil {
					t.Logf("%s: not run: terraform is not on the PATH", b.pos)
					continue
				}
				dir := work
				if b.directive == "in-repo" {
					dir = repo
				}
				file := filepath.Join(root, fmt.Sprintf("block%d.sh", i))
				if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", file)
				cmd.Dir, cmd.Env = dir, env
				cmd.Stdin = yesReader{} // terraform apply and destroy ask
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				start := time.Now()
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("%s: the block failed (%v), run as\n%s\n--- its output (tether is %s):\n%s", b.pos, err, script, tether, lastBytes(out.String(), 6000))
				}
				t.Logf("%s: ran in %s", b.pos, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// docBlock is a sh block of a page.
type docBlock struct {
	pos       string // PAGE:LINE of its opening fence
	lines     []string
	directive string // "", "skip", "covered-by" or "in-repo"
	arg       string // what follows the directive
}

var (
	fenceRE     = regexp.MustCompile("^(\\s*)(```+)\\s*(\\S*)")
	directiveRE = regexp.MustCompile(`^<!--\s*doctest:\s*(\S+)\s*(.*?)\s*-->$`)
)

// shellBlocks finds the sh blocks of a page and the directive before
// each. A directive that is not before a sh block, or is not one of the
// three, is an error: a typo must not make a block silently run or not.
func shellBlocks(page, text string) ([]docBlock, error) {
	var blocks []docBlock
	lines := strings.Split(text, "\n")
	directive, directiveLine := "", 0
	var arg string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directiveRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			switch m[1] {
			case "skip", "covered-by", "in-repo":
			default:
				return nil, fmt.Errorf("%s:%d: unknown doctest directive %q (skip, covered-by or in-repo)", page, i+1, m[1])
			}
			if !strings.Contains(m[2], "(") {
				return nil, fmt.Errorf("%s:%d: the doctest directive %s gives no (reason)", page, i+1, m[1])
			}
			directive, arg, directiveLine = m[1], m[2], i+1
			continue
		}
		m := fenceRE.FindStringSubmatch(line)
		if m == nil {
			if directive != "" && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("%s:%d: a doctest directive must be on the line before a sh block", page, directiveLine)
			}
			continue
		}
		indent, fence, lang := m[1], m[2], m[3]
		b := docBlock{pos: fmt.Sprintf("%s:%d", page, i+1), directive: directive, arg: arg}
		if directive != "" && lang != "sh" {
			return nil, fmt.Errorf("%s:%d: a doctest directive must be on the line before a sh block", page, directiveLine)
		}
		directive, arg = "", ""
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != fence; i++ {
			b.lines = append(b.lines, strings.TrimPrefix(lines[i], indent))
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s: the block is not closed", b.pos)
		}
		if lang == "sh" {
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

var (
	heredocRE   = regexp.MustCompile(`<<-?\s*'?"?(\w+)'?"?\s*(#.*)?$`)
	terraformRE = regexp.MustCompile(`(^|[\s;&|(])terraform\s`)
	curlRE      = regexp.MustCompile(`(^|[\s;&|(])curl\s`)
	goRunRE     = regexp.MustCompile(`\bgo run \./cmd/tether\b`)
)

// script is the block as bash runs it (see TestDocs for the rewrites),
// and whether it runs terraform.
func (b docBlock) script() (string, bool) {
	var s strings.Builder
	s.WriteString("set -euo pipefail\n")
	needsTerraform := false
	heredoc := ""
	for _, line := range b.lines {
		if heredoc != "" {
			if line == heredoc {
				heredoc = ""
			}
			s.WriteString(line + "\n")
			continue
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "go test ") || strings.HasPrefix(trimmed, "go install ./cmd/tether") ||
			strings.HasPrefix(trimmed, "TETHER=$PWD") {
			s.WriteString("# (not run) " + line + "\n")
			continue
		}
		if m := heredocRE.FindStringSubmatch(line); m != nil {
			heredoc = m[1]
		}
		needsTerraform = needsTerraform || terraformRE.MatchString(line)
		line = goRunRE.ReplaceAllString(line, "tether")
		line = curlRE.ReplaceAllString(line, "${1}curl -fsS ")
		s.WriteString(line + "\n")
	}
	return s.String(), needsTerraform
}

// docCoveredBy checks a covered-by directive's "PATH NAME (REASON)": PATH
// exists in the repository and, unless it is a testscript file, declares
// the test NAME.
func docCoveredBy(repo, arg string) error {
	f := strings.Fields(arg)
	if len(f) == 0 {
		return fmt.Errorf("covered-by names no test")
	}
	text, err := os.ReadFile(filepath.Join(repo, f[0]))
	if err != nil {
		return fmt.Errorf("covered-by: %v", err)
	}
	if strings.HasSuffix(f[0], ".txtar") {
		return nil
	}
	if len(f) < 2 || strings.HasPrefix(f[1], "(") {
		return fmt.Errorf("covered-by %s names no test in it", f[0])
	}
	if !strings.Contains(string(text), "\nfunc "+f[1]+"(") {
		return fmt.Errorf("covered-by: %s declares no %s", f[0], f[1])
	}
	return nil
}

// docsGoEnv is what the go command needs with HOME elsewhere: the user's
// caches, and offline.
func docsGoEnv(t *testing.T) []string {
	t.Helper()
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var env []string
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		env = append(env, names[i]+"="+v)
	}
	return append(env, providertest.OfflineGoEnv(t)...)
}

// docsEnv is the blocks' environment: the test's own less what would
// reach outside (Terraform's and Tether's settings, AWS credentials, the
// user's HOME and XDG folders), with HOME the page's own and the go
// command's variables from goEnv (the last of two values is the one a
// command gets).
func docsEnv(home, repo string, goEnv []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "TF_"), strings.HasPrefix(name, "TETHER"), strings.HasPrefix(name, "AWS_"),
			strings.HasPrefix(name, "XDG_"), name == "HOME", name == "NO_COLOR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "TETHER="+repo, "NO_COLOR=1", "CHECKPOINT_DISABLE=1")
	return append(env, goEnv...)
}

// yesReader answers yes to every question, however many commands of a
// block ask one and however much each reads ahead.
type yesReader struct{}

func (yesReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "yes\n"[i%4]
	}
	return len(p) - len(p)%4, nil
}

// lastBytes is the end of s, at most n bytes of it.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// TestDocsBlocks checks how TestDocs reads a page: which blocks run, the
// directives, and the rewrites, without running anything.
func TestDocsBlocks(t *testing.T) {
	fence := "```"
	for _, tc := range []struct {
		name, page string
		want       []string // each sh block's script, less the set line
		wantErr    string
	}{
		{
			name: "only sh blocks, rewritten",
			page: fence + "sh\ngo run ./cmd/tether up -C examples/echo --yes   # deploy\ngo test -timeout 45m ./...\n" + fence + "\n\n" +
				fence + "text\nnot run\n" + fence + "\n" +
				fence + "sh\ngo install ./cmd/tether\nTETHER=$PWD   # this clone\ncurl \"$(go run ./cmd/tether output --raw url)\"\n" + fence + "\n",
			want: []string{
				"tether up -C examples/echo --yes   # deploy\n# (not run) go test -timeout 45m ./...\n",
				"# (not run) go install ./cmd/tether\n# (not run) TETHER=$PWD   # this clone\ncurl -fsS \"$(tether output --raw url)\"\n",
			},
		},
		{
			name: "a here-document is left as written",
			page: fence + "sh\ncat > x <<'EOF'\ngo test ./...\ncurl x\nEOF\ncurl y\n" + fence + "\n",
			want: []string{"cat > x <<'EOF'\ngo test ./...\ncurl x\nEOF\ncurl -fsS y\n"},
		},
		{
			name: "an indented block",
			page: "- item\n\n  " + fence + "sh\n  tether version\n  " + fence + "\n",
			want: []string{"tether version\n"},
		},
		{
			name:    "unknown directive",
			page:    "<!-- doctest: skpi (typo) -->\n" + fence + "sh\ntether version\n" + fence + "\n",
			wantErr: `unknown doctest directive "skpi"`,
		},
		{
			name:    "directive without a reason",
			page:    "<!-- doctest: skip -->\n" + fence + "sh\ntether version\n" + fence + "\n",
			wantErr: "gives no (reason)",
		},
		{
			name:    "directive before prose",
			page:    "<!-- doctest: skip (x) -->\nprose\n" + fence + "sh\ntether version\n" + fence + "\n",
			wantErr: "must be on the line before a sh block",
		},
		{
			name:    "directive before another kind of block",
			page:    "<!-- doctest: skip (x) -->\n" + fence + "text\nx\n" + fence + "\n",
			wantErr: "must be on the line before a sh block",
		},
		{
			name:    "unclosed block",
			page:    fence + "sh\ntether version\n",
			wantErr: "page.md:1: the block is not closed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks, err := shellBlocks("page.md", tc.page)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range blocks {
				s, _ := b.script()
				got = append(got, strings.TrimPrefix(s, "set -euo pipefail\n"))
			}
			if strings.Join(got, "\n---\n") != strings.Join(tc.want, "\n---\n") {
				t.Errorf("scripts:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tc.want, "\n---\n"))
			}
		})
	}
}

// TestDocsDirectives checks the directives' outcome: skip and covered-by
// blocks are not run, covered-by must name a test that exists, and
// terraform is noticed wherever a line runs it.
func TestDocsDirectives(t *testing.T) {
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, wantErr string }{
		{"cmd/tether/platform/aws_test.go TestAWSPlatform (x)", ""},
		{"cmd/tether/goscripts/testdata/goscript/sdk_from_clone.txtar (x)", ""},
		{"cmd/tether/platform/aws_test.go TestNoSuchThing (x)", "declares no TestNoSuchThing"},
		{"cmd/tether/nosuch_test.go TestX (x)", "no such file"},
		{"cmd/tether/platform/aws_test.go (x)", "names no test"},
	} {
		err := docCoveredBy(repo, tc.arg)
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("covered-by %s: error %v, want %q", tc.arg, err, tc.wantErr)
		}
	}
	for line, want := range map[string]bool{
		"cd ~/echo.tf && terraform init && terraform apply": true,
		`curl "$(terraform output -raw url)"`:               true,
		"terraform destroy":                                 true,
		"tether synth --out ~/terraform.out":                false,
	} {
		if _, got := (docBlock{lines: []string{line}}).script(); got != want {
			t.Errorf("%q runs terraform: %v, want %v", line, got, want)
		}
	}
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
)

// TestDocsLinks checks the links of README.md and docs/*.md: a relative
// one names a file of the repository and, after #, a heading of it (by
// GitHub's rule for heading anchors).
func TestDocsLinks(t *testing.T) {
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{filepath.Join(repo, "README.md")}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, page)
		for _, m := range linkRE.FindAllStringSubmatch(string(text), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "\"") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: the link %s names no file of the repository", rel, m[1])
				continue
			}
			if anchor != "" && !hasAnchor(string(body), anchor) {
				t.Errorf("%s: the link %s names no heading of %s", rel, m[1], target)
			}
		}
	}
}

// hasAnchor reports whether a heading of the Markdown text has the anchor
// GitHub gives it: lower case, spaces as hyphens, other punctuation gone.
func hasAnchor(text, anchor string) bool {
	for _, h := range headingRE.FindAllStringSubmatch(text, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(h[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}
