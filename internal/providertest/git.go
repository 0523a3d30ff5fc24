package providertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitCommit is one commit of a repository GitRepo makes: the files it
// writes (by slash path, over the previous commit's) and its tag, if any.
type GitCommit struct {
	Tag   string
	Files map[string]string
}

// GitRepo makes a bare git repository with the given commits on branch
// main, in a temporary folder, with the git command, and returns its path
// (for a source such as git::file://PATH?ref=TAG). It skips the test when
// git is not installed.
func GitRepo(t testing.TB, commits ...GitCommit) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("the git command is needed to make a repository")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	bare := filepath.Join(root, "repo.git")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	run(root, "init", "-q", "--bare", bare)
	run(work, "init", "-q")
	for i, c := range commits {
		for name, text := range c.Files {
			p := filepath.Join(work, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run(work, "add", ".")
		run(work, "commit", "-q", "-m", "commit "+string(rune('1'+i)))
		if c.Tag != "" {
			run(work, "tag", c.Tag)
		}
	}
	run(work, "push", "-q", bare, "HEAD:refs/heads/main", "--tags")
	return bare
}
