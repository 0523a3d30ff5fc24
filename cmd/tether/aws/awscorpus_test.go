package aws

// Checks that keep the AWS corpus (testdata/awscorpus) what its README says
// it is. They read files only: planning and applying the corpus is the
// recorded differential's job.

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const awsCorpusDir = "testdata/awscorpus"

// awsCorpusMinRoots and awsCorpusMinTypes are the floor issue 23 set for the
// corpus: 30 root configurations, 40 distinct resource types.
const (
	awsCorpusMinRoots = 30
	awsCorpusMinTypes = 40
)

var (
	// awsResourceBlock finds a resource block's type at the start of a line.
	awsResourceBlock = regexp.MustCompile(`(?m)^\s*resource\s+"(aws_[a-z0-9_]+)"`)
	// awsCorpusTypeClaim is the README's sentence giving the count.
	awsCorpusTypeClaim = regexp.MustCompile(`(\d+) distinct AWS resource types`)
	// awsCorpusRootLine is a README table row naming a root.
	awsCorpusRootLine = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
)

// TestAWSCorpusLayout checks the corpus's contract with the harness and its
// README: every root carries an identical copy of _providers.tf (so every
// root points the provider at closed local endpoints), the README lists
// exactly the roots that exist, and its count of distinct resource types is
// the count in the files.
func TestAWSCorpusLayout(t *testing.T) {
	canonical, err := os.ReadFile(filepath.Join(awsCorpusDir, "_providers.tf"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(awsCorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	roots := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		roots[e.Name()] = true
		got, err := os.ReadFile(filepath.Join(awsCorpusDir, e.Name(), "providers.tf"))
		if err != nil {
			t.Errorf("root %s: %v", e.Name(), err)
			continue
		}
		if !bytes.Equal(got, canonical) {
			t.Errorf("root %s: providers.tf differs from _providers.tf; copy it again", e.Name())
		}
	}
	if len(roots) < awsCorpusMinRoots {
		t.Errorf("the corpus has %d roots, want at least %d", len(roots), awsCorpusMinRoots)
	}

	readme, err := os.ReadFile(filepath.Join(awsCorpusDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range awsCorpusRootLine.FindAllStringSubmatch(string(readme), -1) {
		listed[m[1]] = true
		if !roots[m[1]] {
			t.Errorf("README.md lists %s, which is not a root folder", m[1])
		}
	}
	for r := range roots {
		if !listed[r] {
			t.Errorf("root %s has no line in README.md", r)
		}
	}

	types := awsCorpusResourceTypes(t)
	claim := awsCorpusTypeClaim.FindStringSubmatch(string(readme))
	if claim == nil {
		t.Fatalf("README.md does not say how many distinct AWS resource types the corpus has (%q)", awsCorpusTypeClaim)
	}
	if n, _ := strconv.Atoi(claim[1]); n != len(types) {
		t.Errorf("README.md claims %d distinct AWS resource types; the files hold %d:\n%s", n, len(types), strings.Join(types, "\n"))
	}
	if len(types) < awsCorpusMinTypes {
		t.Errorf("the corpus uses %d distinct resource types, want at least %d", len(types), awsCorpusMinTypes)
	}
}

// awsCorpusResourceTypes lists, sorted, the distinct resource types of every
// .tf file under the corpus (roots, their ./modules, and _modules).
func awsCorpusResourceTypes(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(awsCorpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".tf" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range awsResourceBlock.FindAllSubmatch(src, -1) {
			seen[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	types := make([]string, 0, len(seen))
	for ty := range seen {
		types = append(types, ty)
	}
	sort.Strings(types)
	return types
}
