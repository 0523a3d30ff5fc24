package funcs

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
)

// stringFunc is a function of one string parameter named str that returns
// a string.
func stringFunc(f func(s string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, err := f(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(s), nil
		},
		RefineResult: refineNotNull,
	})
}

var base64EncodeFunc = stringFunc(func(s string) (string, error) {
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
})

// base64DecodeFunc never quotes its input in an error: it may be a secret.
var base64DecodeFunc = stringFunc(func(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", function.NewArgErrorf(0, "failed to decode base64 data: %s", err)
	}
	if !utf8.Valid(b) {
		return "", function.NewArgErrorf(0, "the result of decoding the provided string is not valid UTF-8")
	}
	return string(b), nil
})

// base64GzipFunc compresses with gzip's default level and flushes before
// closing, as Terraform does, so that the same string gives the same
// bytes.
var base64GzipFunc = stringFunc(func(s string) (string, error) {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	if _, err := gz.Write([]byte(s)); err != nil {
		return "", fmt.Errorf("failed to write gzip raw data: %w", err)
	}
	if err := gz.Flush(); err != nil {
		return "", fmt.Errorf("failed to flush gzip writer: %w", err)
	}
	if err := gz.Close(); err != nil {
		return "", fmt.Errorf("failed to close gzip writer: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
})

var urlEncodeFunc = stringFunc(func(s string) (string, error) { return url.QueryEscape(s), nil })

// textEncoding is the character encoding an IANA name or alias stands
// for, with its canonical name.
func textEncoding(name string) (encoding.Encoding, string, error) {
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, "", function.NewArgErrorf(1, "%q is not a supported IANA encoding name or alias", name)
	}
	canonical, err := ianaindex.IANA.Name(enc)
	if err != nil {
		canonical = name
	}
	return enc, canonical, nil
}

var textEncodeBase64Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "string", Type: cty.String}, {Name: "encoding", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		enc, name, err := textEncoding(args[1].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		b, err := enc.NewEncoder().Bytes([]byte(args[0].AsString()))
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains characters that cannot be represented in %s", name)
		}
		return cty.StringVal(base64.StdEncoding.EncodeToString(b)), nil
	},
	RefineResult: refineNotNull,
})

var textDecodeBase64Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "source", Type: cty.String}, {Name: "encoding", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		enc, name, err := textEncoding(args[1].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		raw, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			var corrupt base64.CorruptInputError
			if errors.As(err, &corrupt) {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given value has an invalid base64 symbol at offset %d", int(corrupt))
			}
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid source string: %s", err)
		}
		text, err := enc.NewDecoder().Bytes(raw)
		if err != nil || bytes.ContainsRune(text, utf8.RuneError) {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains symbols that are not defined for %s", name)
		}
		return cty.StringVal(string(text)), nil
	},
	RefineResult: refineNotNull,
})
