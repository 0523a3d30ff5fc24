package aws

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Build builds the Go program in dir for Lambda (linux/amd64, no cgo, as
// bootstrap for the provided.al2023 runtime) and zips it into out. The
// zip holds nothing that changes from one build of the same source to the
// next (fixed times and modes), so its hash changes, and the functions
// are updated, only when the program does.
func Build(dir, out string) (Bundle, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return Bundle{}, fmt.Errorf("building the program for Lambda needs the go command, which is not on PATH")
	}
	tmp, err := os.MkdirTemp("", "tether-bootstrap-")
	if err != nil {
		return Bundle{}, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bootstrap")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	if text, err := cmd.CombinedOutput(); err != nil {
		return Bundle{}, fmt.Errorf("go build for linux/amd64 in %s: %v\n%s", dir, err, text)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return Bundle{}, err
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
		err = zw.Close()
	}
	if err != nil {
		return Bundle{}, fmt.Errorf("zipping the program: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return Bundle{}, err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return Bundle{}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return Bundle{Path: out, Hash: base64.StdEncoding.EncodeToString(sum[:])}, nil
}
