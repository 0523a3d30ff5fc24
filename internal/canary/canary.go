package canary

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// form is one way a secret can be written.
type form struct {
	name  string
	bytes []byte
}

// forms lists the ways a secret is looked for. Base64 text depends on
// where the secret starts relative to a group of three bytes, so each of
// the three alignments contributes the part of the encoding that does not
// depend on the bytes around the secret.
func forms(secret string) []form {
	b := []byte(secret)
	out := []form{
		{"as is", b},
		// A provider that upper-cases an identifier, or a log that
		// lower-cases one, still gives the secret away when its letters
		// are few of its characters' entropy.
		{"upper case", []byte(strings.ToUpper(secret))},
		{"lower case", []byte(strings.ToLower(secret))},
		{"hex", []byte(hex.EncodeToString(b))},
		{"HEX", []byte(strings.ToUpper(hex.EncodeToString(b)))},
	}
	// Digests of the secret give it away too: anyone can hash guesses.
	for _, d := range []struct {
		name string
		sum  []byte
	}{
		{"md5", func() []byte { h := md5.Sum(b); return h[:] }()},
		{"sha1", func() []byte { h := sha1.Sum(b); return h[:] }()},
		{"sha256", func() []byte { h := sha256.Sum256(b); return h[:] }()},
		{"sha512", func() []byte { h := sha512.Sum512(b); return h[:] }()},
	} {
		out = append(out,
			form{d.name + " hex", []byte(hex.EncodeToString(d.sum))},
			form{d.name + " base64", []byte(base64.StdEncoding.EncodeToString(d.sum))})
	}
	for skip := 0; skip < 3 && skip < len(b); skip++ {
		rest := b[skip:]
		rest = rest[:len(rest)/3*3]
		if len(rest) < 3 {
			continue
		}
		out = append(out,
			form{fmt.Sprintf("base64 (alignment %d)", skip), []byte(base64.RawStdEncoding.EncodeToString(rest))},
			form{fmt.Sprintf("base64url (alignment %d)", skip), []byte(base64.RawURLEncoding.EncodeToString(rest))})
	}
	return out
}

// Find reports the first secret found in data and in what form.
func Find(data []byte, secrets ...string) (secret, how string, found bool) {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range forms(s) {
			if bytes.Contains(data, f.bytes) {
				return s, f.name, true
			}
		}
	}
	return "", "", false
}

// Leak is a secret found in a file.
type Leak struct {
	Path   string
	Secret string
	Form   string
}

func (l Leak) String() string {
	return fmt.Sprintf("%s holds a secret (%s)", l.Path, l.Form)
}

// ScanDir reads every regular file under dir, whatever its name or size,
// and lists those holding one of the secrets. Folders whose path relative
// to dir is in skip are not read.
func ScanDir(dir string, secrets []string, skip ...string) ([]Leak, error) {
	var leaks []Leak
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			for _, s := range skip {
				if rel == filepath.Clean(s) {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if s, how, ok := Find(data, secrets...); ok {
			leaks = append(leaks, Leak{Path: filepath.ToSlash(rel), Secret: s, Form: how})
		}
		return nil
	})
	return leaks, err
}
