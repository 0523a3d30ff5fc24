package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestSealRoundTripHidesThePlaintext(t *testing.T) {
	k, err := New(bytes.Repeat([]byte{7}, 32), "test")
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte(`{"password":"hunter2-canary"}`)
	sealed := k.Seal(secret)
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatalf("sealed blob contains the plaintext: %s", sealed)
	}
	if !IsSealed(sealed) {
		t.Fatal("IsSealed(sealed) = false")
	}
	got, err := k.Open(sealed)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, 32), "other")
	if _, err := other.Open(sealed); err == nil {
		t.Fatal("a different key opened the blob")
	}
}

func TestHashIsKeyedAndStable(t *testing.T) {
	a, _ := New(bytes.Repeat([]byte{1}, 32), "a")
	b, _ := New(bytes.Repeat([]byte{2}, 32), "b")
	if a.Hash([]byte("x")) != a.Hash([]byte("x")) {
		t.Fatal("hash of the same value differs")
	}
	if a.Hash([]byte("x")) == a.Hash([]byte("y")) {
		t.Fatal("different values hash the same")
	}
	if a.Hash([]byte("x")) == b.Hash([]byte("x")) {
		t.Fatal("hash does not depend on the key")
	}
}

func TestLoadKeepsTheKeyOutsideTheStateFolder(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv(EnvVar, "")
	stateDir := filepath.Join(t.TempDir(), ".tether")
	k1, err := Load(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := Load(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if k1.Hash([]byte("v")) != k2.Hash([]byte("v")) {
		t.Fatal("the key changed between loads")
	}
	entries, _ := os.ReadDir(stateDir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(stateDir, e.Name()))
		if bytes.Contains(b, []byte(k1.Where)) || e.Name() != "id" {
			t.Errorf("state folder holds %s", e.Name())
		}
	}
	fi, err := os.Stat(k1.Where)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestLoadFromEnvironment(t *testing.T) {
	t.Setenv(EnvVar, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	k, err := Load(t.TempDir())
	if err != nil || k.Where != EnvVar {
		t.Fatalf("Load = %v, %v", k, err)
	}
	t.Setenv(EnvVar, "short")
	if _, err := Load(t.TempDir()); err == nil {
		t.Fatal("a malformed key was accepted")
	}
}
