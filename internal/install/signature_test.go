package install

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

func TestVerifySignature(t *testing.T) {
	newKey := func() (*openpgp.Entity, string) {
		e, err := openpgp.NewEntity("test", "", "t@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, _ := armor.Encode(&buf, openpgp.PublicKeyType, nil)
		e.Serialize(w)
		w.Close()
		return e, buf.String()
	}
	signer, signerPub := newKey()
	_, otherPub := newKey()
	doc := []byte("abc  file.zip\n")
	var sig bytes.Buffer
	if err := openpgp.DetachSign(&sig, signer, bytes.NewReader(doc), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		doc  []byte
		sig  []byte
		keys []string
		want string // the description, or the start of the error after "!"
	}{
		{"signed", doc, sig.Bytes(), []string{signerPub}, "self-signed, key ID " + signer.PrimaryKey.KeyIdString()},
		{"signed, second key", doc, sig.Bytes(), []string{otherPub, signerPub}, "self-signed, key ID " + signer.PrimaryKey.KeyIdString()},
		{"other key", doc, sig.Bytes(), []string{otherPub}, "!the signature is by none of the signing keys"},
		{"no keys", doc, sig.Bytes(), nil, "!the registry gives no signing key"},
		{"document changed", []byte("abd  file.zip\n"), sig.Bytes(), []string{signerPub}, "!bad signature"},
		{"signature garbage", doc, []byte("garbage"), []string{signerPub}, "!"},
		{"key garbage", doc, sig.Bytes(), []string{"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxx\n-----END PGP PUBLIC KEY BLOCK-----\n"}, "!a signing key the registry gives does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verifySignature(tt.doc, tt.sig, tt.keys)
			if wantErr, isErr := strings.CutPrefix(tt.want, "!"); isErr {
				if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
					t.Errorf("got %q, %v; want an error starting %q", got, err, wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseSums(t *testing.T) {
	a := strings.Repeat("a", 64)
	b := strings.Repeat("B", 64)
	tests := []struct {
		name, doc, file string
		listed          string
		all             []string
		err             string
	}{
		{"two platforms", a + "  x_linux_amd64.zip\n" + b + "  x_darwin_arm64.zip\n", "x_linux_amd64.zip", a, []string{"zh:" + a, "zh:" + strings.ToLower(b)}, ""},
		{"binary mode marker", a + " *x.zip\n", "x.zip", a, []string{"zh:" + a}, ""},
		{"blank lines", "\n" + a + "  x.zip\n\n", "x.zip", a, []string{"zh:" + a}, ""},
		{"file not listed", a + "  y.zip\n", "x.zip", "", nil, "it does not list x.zip"},
		{"not hex", strings.Repeat("z", 64) + "  x.zip\n", "x.zip", "", nil, "is not a checksum line"},
		{"html", "<html>\n", "x.zip", "", nil, "is not a checksum line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			listed, all, err := parseSums([]byte(tt.doc), tt.file)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || listed != tt.listed || !reflect.DeepEqual(all, tt.all) {
				t.Errorf("got %q %q %v", listed, all, err)
			}
		})
	}
}
