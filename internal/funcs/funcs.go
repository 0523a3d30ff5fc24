package funcs

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Table returns the functions for configuration whose files live in baseDir;
// relative paths given to file functions are taken from there.
func Table(baseDir string) map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        coalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"csvdecode":       stdlib.CSVDecodeFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatdate":      stdlib.FormatDateFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           indexFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          lengthFunc,
		"log":             stdlib.LogFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"pow":             stdlib.PowFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"replace":         replaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"signum":          stdlib.SignumFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"timeadd":         stdlib.TimeAddFunc,
		"title":           stdlib.TitleFunc,
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,

		"tobool":   stdlib.MakeToFunc(cty.Bool),
		"tonumber": stdlib.MakeToFunc(cty.Number),
		"tostring": stdlib.MakeToFunc(cty.String),
		"tolist":   stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"toset":    stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tomap":    stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"convert":  typeexpr.ConvertFunc,
		"try":      tryfunc.TryFunc,
		"can":      tryfunc.CanFunc,

		"base64encode": base64EncodeFunc,
		"base64decode": base64DecodeFunc,
		"md5":          hashFunc(md5.New),
		"sha1":         hashFunc(sha1.New),
		"sha256":       hashFunc(sha256.New),
		"sha512":       hashFunc(sha512.New),

		"strcontains":  strContainsFunc,
		"startswith":   startsWithFunc,
		"endswith":     endsWithFunc,
		"alltrue":      boolFold(true),
		"anytrue":      boolFold(false),
		"sum":          sumFunc,
		"one":          oneFunc,
		"nonsensitive": nonsensitiveFunc,
		"sensitive":    sensitiveFunc,

		"env_reference":  referenceFunc("env", "name"),
		"file_reference": referenceFunc("file", "path"),
		"reference":      referenceOfKind,

		"file":       fileFunc(baseDir),
		"fileexists": fileExistsFunc(baseDir),
		"abspath":    absPathFunc(baseDir),
		"basename":   pathFunc(filepath.Base),
		"dirname":    pathFunc(filepath.Dir),
	}
}

var base64EncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
	RefineResult: refineNotNull,
})

var base64DecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "not valid base64: %s", err)
		}
		if !utf8.Valid(b) {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8")
		}
		return cty.StringVal(string(b)), nil
	},
	RefineResult: refineNotNull,
})

func hashFunc(newHash func() hash.Hash) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			h := newHash()
			h.Write([]byte(args[0].AsString()))
			return cty.StringVal(hex.EncodeToString(h.Sum(nil))), nil
		},
		RefineResult: refineNotNull,
	})
}

func resolve(baseDir, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	return p
}

func fileFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := os.ReadFile(resolve(baseDir, args[0].AsString()))
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "cannot read file: %s", err)
			}
			if !utf8.Valid(b) {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "contents of %s are not valid UTF-8", args[0].AsString())
			}
			return cty.StringVal(string(b)), nil
		},
		RefineResult: refineNotNull,
	})
}

func fileExistsFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			fi, err := os.Stat(resolve(baseDir, args[0].AsString()))
			if err != nil {
				if os.IsNotExist(err) {
					return cty.False, nil
				}
				return cty.UnknownVal(cty.Bool), fmt.Errorf("cannot stat file: %w", err)
			}
			if !fi.Mode().IsRegular() {
				return cty.UnknownVal(cty.Bool), function.NewArgErrorf(0, "%s is not a regular file", args[0].AsString())
			}
			return cty.True, nil
		},
		RefineResult: refineNotNull,
	})
}

func absPathFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(filepath.ToSlash(filepath.Clean(resolve(baseDir, args[0].AsString())))), nil
		},
		RefineResult: refineNotNull,
	})
}

func pathFunc(f func(string) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(f(args[0].AsString())), nil
		},
		RefineResult: refineNotNull,
	})
}

func refineNotNull(b *cty.RefinementBuilder) *cty.RefinementBuilder { return b.NotNull() }
