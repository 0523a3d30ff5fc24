package aws

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/filelock"
)

// Build builds the Go program in dir for Lambda (linux/amd64, no cgo, as
// bootstrap for the provided.al2023 runtime) and zips it into the folder
// out as bootstrap.zip. The executable is linked in the folder link, which
// every state folder of the program shares (up's and test's), so that the
// go command finds it up to date and does not link it again for each: a
// program that embeds Tether's engine links for seconds of CPU and a
// gigabyte of memory. The zip holds nothing that changes from one build of
// the same source to the next (fixed time and mode), so its hash changes,
// and the functions are updated, only when the program does. The zip's
// comment is the executable's SHA-256, to tell whether it must be made
// again.
//
// The executable is linked without its symbol table and DWARF debugging
// information (-ldflags=-s -w): Lambda runs it and never a debugger, its
// panics still name functions and lines, and the zip is a third smaller,
// further below Lambda's 50 MB limit for a direct upload. Flags of the
// user's own (GOFLAGS, in the environment or go env -w) still apply; when
// they set -ldflags, those are used instead, never silently dropped.
func Build(dir, link, out string) (Bundle, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return Bundle{}, fmt.Errorf("building the program for Lambda needs the go command, which is not on PATH")
	}
	for _, d := range []string{link, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Bundle{}, err
		}
	}
	exe, err := linkBootstrap(goBin, dir, link)
	if err != nil {
		return Bundle{}, err
	}
	zipPath := filepath.Join(out, "bootstrap.zip")
	exeSum := sha256.Sum256(exe)
	if z, err := os.ReadFile(zipPath); err == nil {
		if r, err := zip.NewReader(bytes.NewReader(z), int64(len(z))); err == nil && r.Comment == hex.EncodeToString(exeSum[:]) {
			return bundleOf(zipPath, z), nil
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate, Modified: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err == nil {
		_, err = w.Write(exe)
	}
	if err == nil {
		err = zw.SetComment(hex.EncodeToString(exeSum[:]))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return Bundle{}, fmt.Errorf("zipping the program: %v", err)
	}
	if err := os.WriteFile(zipPath, buf.Bytes(), 0o644); err != nil {
		return Bundle{}, err
	}
	return bundleOf(zipPath, buf.Bytes()), nil
}

// linkBootstrap runs go build for Lambda into link/bootstrap and returns
// the executable. A lock on the folder makes a second tether process (up
// and test at once) wait, rather than read an executable the go command
// is still writing or link it twice.
func linkBootstrap(goBin, dir, link string) ([]byte, error) {
	bin, err := filepath.Abs(filepath.Join(link, "bootstrap"))
	if err != nil {
		return nil, err
	}
	unlock, err := filelock.Lock(filepath.Join(link, ".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	env := append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	args := []string{"build", "-o", bin}
	flags, err := goEnv(goBin, dir, env, "GOFLAGS")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(flags, "-ldflags") {
		args = append(args, "-ldflags=-s -w")
	}
	cmd := exec.Command(goBin, append(args, ".")...)
	cmd.Dir, cmd.Env = dir, env
	if text, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build for linux/amd64 in %s: %v\n%s", dir, err, text)
	}
	return os.ReadFile(bin)
}

// goEnv is the go command's setting name in dir: the environment's, else
// the one go env -w wrote.
func goEnv(goBin, dir string, env []string, name string) (string, error) {
	cmd := exec.Command(goBin, "env", name)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s in %s: %v", name, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func bundleOf(path string, zipped []byte) Bundle {
	sum := sha256.Sum256(zipped)
	return Bundle{Path: path, Hash: base64.StdEncoding.EncodeToString(sum[:])}
}
