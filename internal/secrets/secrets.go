package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/internal/durable"
)

// Keys are the keys of one state.
type Keys struct {
	aead    cipher.AEAD
	hmacKey []byte
	// Where says where the key came from, for error messages.
	Where string
}

// EnvVar names the environment variable that may hold the key.
const EnvVar = "TETHER_STATE_KEY"

// Load finds or creates the key of the state whose folder is stateDir. The
// state's id is kept in stateDir/id (not a secret); the key itself in
// TETHER_STATE_KEY or under the user's configuration folder.
func Load(stateDir string) (*Keys, error) {
	if os.Getenv(EnvVar) != "" {
		return LoadID("")
	}
	id, err := stateID(stateDir)
	if err != nil {
		return nil, err
	}
	return LoadID(id)
}

// LoadID finds or creates the key of the state with the given id, for a
// state whose id is not kept in a folder (a PostgreSQL schema keeps its
// own). TETHER_STATE_KEY, when set, is the key whatever the id.
func LoadID(id string) (*Keys, error) {
	if v := os.Getenv(EnvVar); v != "" {
		raw, err := hex.DecodeString(strings.TrimSpace(v))
		if err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("%s must be 64 hex digits (a 32-byte key); generate one with: openssl rand -hex 32", EnvVar)
		}
		return New(raw, EnvVar)
	}
	if len(id) != 32 {
		return nil, fmt.Errorf("invalid state id %q: it should be 32 hex digits", id)
	}
	if _, err := hex.DecodeString(id); err != nil {
		return nil, fmt.Errorf("invalid state id %q: it should be 32 hex digits", id)
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("no place for the state key: %v; set %s to 64 hex digits instead", err, EnvVar)
	}
	path := filepath.Join(cfg, "tether", "keys", id)
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		raw, err = hex.DecodeString(strings.TrimSpace(string(raw)))
		if err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("the state key in %s is damaged; restore it, or remove it to start with a new key (sealed objects in this state then cannot be read)", path)
		}
		return New(raw, path)
	case errors.Is(err, os.ErrNotExist):
		raw = make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("cannot keep the state key: %v; set %s instead", err, EnvVar)
		}
		// O_EXCL: two first runs at once must not each write a key.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return LoadID(id)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot keep the state key: %v; set %s instead", err, EnvVar)
		}
		_, werr := f.WriteString(hex.EncodeToString(raw) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, werr
		}
		return New(raw, path)
	default:
		return nil, fmt.Errorf("cannot read the state key %s: %v", path, err)
	}
}

// ID returns the id of the state whose folder is stateDir, creating it on
// first use.
func ID(stateDir string) (string, error) { return stateID(stateDir) }

// SetID gives the state whose folder is stateDir the id of another state,
// whose key it then shares: state moved between stores keeps the key its
// sealed values and keyed hashes were made with.
func SetID(stateDir, id string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	// Durably: the state copied under this id is committed next, and
	// without the id its sealed values would not open.
	return durable.WriteFile(filepath.Join(stateDir, "id"), []byte(id+"\n"), 0o600)
}

// stateID returns the state's random id, creating it on first use.
func stateID(stateDir string) (string, error) {
	path := filepath.Join(stateDir, "id")
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if len(id) == 32 {
			if _, err := hex.DecodeString(id); err == nil {
				return id, nil
			}
		}
		return "", fmt.Errorf("%s is damaged: it should hold the state's 32-hex-digit id", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return stateID(stateDir)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(id + "\n")
	return id, err
}

// New makes keys from 32 bytes of key material. Sealing and hashing use
// separate keys derived from it, so that neither use weakens the other.
func New(raw []byte, where string) (*Keys, error) {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, raw)
		m.Write([]byte("tether/" + label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("seal"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Keys{aead: aead, hmacKey: derive("hmac"), Where: where}, nil
}

// sealedPrefix starts every sealed blob, so that a reader can tell sealed
// from clear JSON, which always starts with '{', '[' or '"'.
var sealedPrefix = []byte("tether-sealed:v1:")

// Seal encrypts plaintext.
func (k *Keys) Seal(plaintext []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	ct := k.aead.Seal(nonce, nonce, plaintext, nil)
	out := make([]byte, len(sealedPrefix)+base64.StdEncoding.EncodedLen(len(ct)))
	copy(out, sealedPrefix)
	base64.StdEncoding.Encode(out[len(sealedPrefix):], ct)
	return out
}

// IsSealed reports whether b was made by Seal.
func IsSealed(b []byte) bool { return bytes.HasPrefix(b, sealedPrefix) }

// Open decrypts what Seal made. Data that is not sealed is returned as is.
func (k *Keys) Open(b []byte) ([]byte, error) {
	if !IsSealed(b) {
		return b, nil
	}
	ct, err := base64.StdEncoding.DecodeString(string(b[len(sealedPrefix):]))
	if err != nil {
		return nil, errors.New("sealed value is damaged")
	}
	ns := k.aead.NonceSize()
	if len(ct) < ns {
		return nil, errors.New("sealed value is damaged")
	}
	pt, err := k.aead.Open(nil, ct[:ns], ct[ns:], nil)
	if err != nil {
		return nil, fmt.Errorf("cannot open a sealed value with the key from %s: it was sealed with another key", k.Where)
	}
	return pt, nil
}

// Hash is the keyed hash of a value's bytes: equal values give equal
// hashes under one key, and without the key the hash says nothing about
// the value.
func (k *Keys) Hash(value []byte) string {
	m := hmac.New(sha256.New, k.hmacKey)
	m.Write(value)
	return hex.EncodeToString(m.Sum(nil))
}
