package funcs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// expandHome replaces a leading ~ with the user's home folder, as
// Terraform's file functions and pathexpand do; ~user is not supported.
func expandHome(p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	if len(p) > 1 && p[1] != '/' && p[1] != '\\' {
		return "", errors.New("cannot expand user-specific home dir")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("failed to expand ~: %w", err)
	}
	return filepath.Join(home, p[1:]), nil
}

// resolve is the path a file function reads: ~ expanded, relative paths
// taken from baseDir.
func resolve(baseDir, p string) (string, error) {
	p, err := expandHome(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	return filepath.Clean(p), nil
}

// readFile reads a file a configuration names. Its errors name the path
// as the configuration wrote it.
func readFile(baseDir, p string) ([]byte, error) {
	full, err := resolve(baseDir, p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no file exists at %s; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource", p)
	case err != nil:
		return nil, fmt.Errorf("failed to read %s: %w", p, err)
	}
	return b, nil
}

// fileFunc is file, or filebase64 when encode is set.
func fileFunc(baseDir string, encode bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			b, err := readFile(baseDir, p)
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgError(0, err)
			}
			if encode {
				return cty.StringVal(base64.StdEncoding.EncodeToString(b)), nil
			}
			if !utf8.Valid(b) {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "contents of %s are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead", p)
			}
			return cty.StringVal(string(b)), nil
		},
		RefineResult: refineNotNull,
	})
}

// fileHashFunc hashes a file's bytes, which need not be UTF-8.
func fileHashFunc(baseDir string, sum func([]byte) []byte, text func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := readFile(baseDir, args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgError(0, err)
			}
			return cty.StringVal(text(sum(b))), nil
		},
		RefineResult: refineNotNull,
	})
}

func fileExistsFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			full, err := resolve(baseDir, p)
			if err != nil {
				return cty.UnknownVal(cty.Bool), function.NewArgError(0, err)
			}
			fi, err := os.Stat(full)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return cty.False, nil
			case err != nil:
				return cty.UnknownVal(cty.Bool), function.NewArgErrorf(0, "failed to stat %s", p)
			case fi.Mode().IsRegular():
				return cty.True, nil
			case fi.IsDir():
				return cty.UnknownVal(cty.Bool), function.NewArgErrorf(0, "%s is a directory, not a file", p)
			}
			return cty.UnknownVal(cty.Bool), function.NewArgErrorf(0, "%s is not a regular file", p)
		},
		RefineResult: refineNotNull,
	})
}

// fileSetFunc is Terraform's fileset: the regular files under path that
// match pattern, relative to path, with forward slashes. Matching is
// doublestar's, the library Terraform uses, so ** and {a,b} mean the same.
func fileSetFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			dir := args[0].AsString()
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(baseDir, dir)
			}
			pattern := filepath.Join(dir, args[1].AsString())
			matches, err := doublestar.Glob(pattern)
			if err != nil {
				return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to glob pattern %s: %w", args[1].AsString(), err)
			}
			var found []cty.Value
			for _, m := range matches {
				fi, err := os.Stat(m)
				if err != nil {
					return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to stat %s: %w", m, err)
				}
				if !fi.Mode().IsRegular() {
					continue
				}
				rel, err := filepath.Rel(dir, m)
				if err != nil {
					return cty.UnknownVal(cty.Set(cty.String)), fmt.Errorf("failed to trim path of match %s: %w", m, err)
				}
				found = append(found, cty.StringVal(filepath.ToSlash(rel)))
			}
			if len(found) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			return cty.SetVal(found), nil
		},
		RefineResult: refineNotNull,
	})
}

// absPathFunc makes a path absolute from baseDir, Terraform's working
// folder.
func absPathFunc(baseDir string) function.Function {
	return pathFunc(func(p string) (string, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		return filepath.ToSlash(filepath.Clean(p)), nil
	})
}

func basename(p string) (string, error) { return filepath.Base(p), nil }
func dirname(p string) (string, error)  { return filepath.Dir(p), nil }

var pathExpandFunc = pathFunc(expandHome)

func pathFunc(f func(string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, err := f(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgError(0, err)
			}
			return cty.StringVal(s), nil
		},
		RefineResult: refineNotNull,
	})
}
