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
	"time"
)

// Build builds the Go program in dir for Lambda (linux/amd64, no cgo, as
// bootstrap for the provided.al2023 runtime) into the folder out and zips
// it there as bootstrap.zip. The executable stays in out, so that the go
// command finds it up to date and does not link it again; the zip holds
// nothing that changes from one build of the same source to the next
// (fixed time and mode), so its hash changes, and the functions are
// updated, only when the program does. The zip's comment is the
// executable's SHA-256, to tell whether it must be made again.
func Build(dir, out string) (Bundle, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return Bundle{}, fmt.Errorf("building the program for Lambda needs the go command, which is not on PATH")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Bundle{}, err
	}
	bin, zipPath := filepath.Join(out, "bootstrap"), filepath.Join(out, "bootstrap.zip")
	abs, err := filepath.Abs(bin)
	if err != nil {
		return Bundle{}, err
	}
	cmd := exec.Command(goBin, "build", "-o", abs, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	if text, err := cmd.CombinedOutput(); err != nil {
		return Bundle{}, fmt.Errorf("go build for linux/amd64 in %s: %v\n%s", dir, err, text)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return Bundle{}, err
	}
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

func bundleOf(path string, zipped []byte) Bundle {
	sum := sha256.Sum256(zipped)
	return Bundle{Path: path, Hash: base64.StdEncoding.EncodeToString(sum[:])}
}
