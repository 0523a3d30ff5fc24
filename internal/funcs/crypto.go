package funcs

import (
	"crypto/md5"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/ssh"
)

func md5Sum(b []byte) []byte    { s := md5.Sum(b); return s[:] }
func sha1Sum(b []byte) []byte   { s := sha1.Sum(b); return s[:] }
func sha256Sum(b []byte) []byte { s := sha256.Sum256(b); return s[:] }
func sha512Sum(b []byte) []byte { s := sha512.Sum512(b); return s[:] }

var hexText = hex.EncodeToString
var base64Text = base64.StdEncoding.EncodeToString

// stringHashFunc hashes a string's UTF-8 bytes. A hash of a sensitive
// value stays sensitive: an unkeyed hash of a secret gives it away.
func stringHashFunc(sum func([]byte) []byte, text func([]byte) string) function.Function {
	return stringFunc(func(s string) (string, error) { return text(sum([]byte(s))), nil })
}

// impure wraps the result of a function whose every call gives a
// different result: unknown until the plan is applied, as Terraform plans
// it, so that a plan never shows a value that apply would not use.
func impure(run Run, f func(args []cty.Value) (cty.Value, error)) function.ImplFunc {
	return func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !run.Applying {
			return cty.UnknownVal(cty.String), nil
		}
		return f(args)
	}
}

func uuidFunc(run Run) function.Function {
	return function.New(&function.Spec{
		Type: function.StaticReturnType(cty.String),
		Impl: impure(run, func([]cty.Value) (cty.Value, error) {
			u, err := uuid.NewRandom()
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(u.String()), nil
		}),
		RefineResult: refineNotNull,
	})
}

var uuidV5Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "namespace", Type: cty.String}, {Name: "name", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var ns uuid.UUID
		switch name := args[0].AsString(); name {
		case "dns":
			ns = uuid.NameSpaceDNS
		case "url":
			ns = uuid.NameSpaceURL
		case "oid":
			ns = uuid.NameSpaceOID
		case "x500":
			ns = uuid.NameSpaceX500
		default:
			var err error
			if ns, err = uuid.Parse(name); err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "uuidv5() doesn't support namespace %s (%v)", name, err)
			}
		}
		return cty.StringVal(uuid.NewSHA1(ns, []byte(args[1].AsString())).String()), nil
	},
	RefineResult: refineNotNull,
})

func bcryptFunc(run Run) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "str", Type: cty.String}},
		VarParam: &function.Parameter{Name: "cost", Type: cty.Number},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			cost := bcrypt.DefaultCost
			if len(args) > 2 {
				return cty.UnknownVal(cty.String), errors.New("bcrypt() takes no more than two arguments")
			}
			if len(args) == 2 {
				if err := gocty.FromCtyValue(args[1], &cost); err != nil {
					return cty.UnknownVal(cty.String), function.NewArgError(1, err)
				}
				// A cost below the minimum means the default, as in
				// Terraform; one above the maximum is refused while
				// planning already.
				if cost > bcrypt.MaxCost {
					return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "cost %d is outside allowed range (%d,%d)", cost, bcrypt.MinCost, bcrypt.MaxCost)
				}
			}
			return impure(run, func([]cty.Value) (cty.Value, error) {
				out, err := bcrypt.GenerateFromPassword([]byte(args[0].AsString()), cost)
				if err != nil {
					return cty.UnknownVal(cty.String), fmt.Errorf("error occurred generating password: %s", err)
				}
				return cty.StringVal(string(out)), nil
			})(args, cty.String)
		},
		RefineResult: refineNotNull,
	})
}

// rsaDecryptFunc never quotes its arguments in an error: the key is a
// secret, and the plain text may be.
var rsaDecryptFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "ciphertext", Type: cty.String}, {Name: "privatekey", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "failed to decode input: cipher text must be base64-encoded")
		}
		raw, err := ssh.ParseRawPrivateKey([]byte(args[1].AsString()))
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "invalid private key: %s", err)
		}
		key, ok := raw.(*rsa.PrivateKey)
		if !ok {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "invalid private key type %T: an RSA key is needed", raw)
		}
		out, err := rsa.DecryptPKCS1v15(nil, key, b)
		if err != nil {
			return cty.UnknownVal(cty.String), fmt.Errorf("failed to decrypt: %s", err)
		}
		return cty.StringVal(string(out)), nil
	},
	RefineResult: refineNotNull,
})
