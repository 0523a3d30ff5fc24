package install

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
)

// hashiCorpFingerprint is the fingerprint of HashiCorp's release signing
// key (key ID 34365D9472D7468F); a SHA256SUMS signed by it is reported as
// "signed by HashiCorp".
const hashiCorpFingerprint = "c874011f0ab405110d02105534365d9472d7468f"

// verifySignature checks that sig is a valid detached OpenPGP signature of
// doc by one of keys (ASCII-armored public keys, as the registry returns
// them) and describes the signer for the progress line: "signed by
// HashiCorp" or "self-signed, key ID …". A signature by a key that is not
// among keys, a bad signature or a key that does not parse is an error.
// An expired key is accepted, as Terraform does: the registry still
// vouches for the releases it signed.
func verifySignature(doc, sig []byte, keys []string) (string, error) {
	if len(keys) == 0 {
		return "", errors.New("the registry gives no signing key")
	}
	for _, armored := range keys {
		ring, err := openpgp.ReadArmoredKeyRing(strings.NewReader(armored))
		if err != nil {
			return "", fmt.Errorf("a signing key the registry gives does not parse: %v", err)
		}
		signer, err := openpgp.CheckDetachedSignature(ring, bytes.NewReader(doc), bytes.NewReader(sig), nil)
		if errors.Is(err, pgperrors.ErrUnknownIssuer) {
			continue
		}
		if err != nil && !errors.Is(err, pgperrors.ErrKeyExpired) && !errors.Is(err, pgperrors.ErrSignatureExpired) {
			return "", fmt.Errorf("bad signature: %v", err)
		}
		if signer == nil || signer.PrimaryKey == nil {
			return "", fmt.Errorf("bad signature: %v", err)
		}
		if hex.EncodeToString(signer.PrimaryKey.Fingerprint) == hashiCorpFingerprint {
			return "signed by HashiCorp", nil
		}
		return "self-signed, key ID " + signer.PrimaryKey.KeyIdString(), nil
	}
	return "", errors.New("the signature is by none of the signing keys the registry gives")
}

// parseSums reads a SHA256SUMS document: it returns the hex sum listed for
// filename and the "zh:" hash of every zip it lists (all platforms), which
// is what Terraform records in the lock file.
func parseSums(doc []byte, filename string) (string, []string, error) {
	var listed string
	var all []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || len(f[0]) != 64 {
			return "", nil, fmt.Errorf("the line %q is not a checksum line", sc.Text())
		}
		if _, err := hex.DecodeString(f[0]); err != nil {
			return "", nil, fmt.Errorf("the line %q is not a checksum line", sc.Text())
		}
		name := strings.TrimPrefix(f[1], "*")
		if name == filename {
			listed = strings.ToLower(f[0])
		}
		all = append(all, "zh:"+strings.ToLower(f[0]))
	}
	if listed == "" {
		return "", nil, fmt.Errorf("it does not list %s", filename)
	}
	return listed, all, nil
}
