package providertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

// TestPackageForms checks the invariants the installer's tests lean on: a
// zip of a build is the same bytes every time, and its h1 hash equals that
// of the unpacked layout and of the packed mirror's zip.
func TestPackageForms(t *testing.T) {
	for _, p := range []Provider{Time(t), Local(t)} {
		t.Run(p.Source.String(), func(t *testing.T) {
			z1, err := p.Zip()
			if err != nil {
				t.Fatal(err)
			}
			z2, _ := p.Zip()
			if !bytes.Equal(z1, z2) {
				t.Error("two zips of one build differ")
			}
			want, err := p.H1()
			if err != nil {
				t.Fatal(err)
			}
			unpacked := UnpackedMirror(t, t.TempDir(), p)
			got, err := dirhash.HashDir(filepath.Join(unpacked, p.Source.String(), p.Version, Platform()), "", dirhash.Hash1)
			if err != nil || got != want {
				t.Errorf("unpacked h1 %s (%v), want %s", got, err, want)
			}
			packed := PackedMirror(t, t.TempDir(), p)
			got, err = dirhash.HashZip(filepath.Join(packed, p.Source.String(), p.ZipName(Platform())), dirhash.Hash1)
			if err != nil || got != want {
				t.Errorf("packed h1 %s (%v), want %s", got, err, want)
			}
			if p.As("9.9.9").BinaryName() == p.BinaryName() {
				t.Error("another version has the same binary name")
			}
		})
	}
}

// TestBuildUnknown names the known providers.
func TestBuildUnknown(t *testing.T) {
	_, err := Build("nope")
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("local, time")) {
		t.Errorf("error %v", err)
	}
}

// TestAWSMirror checks that a mirror found holds the package it claims.
func TestAWSMirror(t *testing.T) {
	dir := AWSMirror()
	if dir == "" {
		t.Skip("no local mirror with hashicorp/aws 5.100.0")
	}
	if _, err := os.Stat(filepath.Join(dir, "registry.terraform.io/hashicorp/aws/5.100.0", Platform())); err != nil {
		t.Error(err)
	}
}
