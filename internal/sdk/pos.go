package sdk

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/goprogram"
)

// Error is a mistake in a program, reported at the place in the program's
// source that made it. The SDK returns it from the direct form of data
// sources; returned from the function given to Main, it is printed like
// any other diagnostic, as FILE:LINE:COLUMN: SUMMARY.
type Error struct {
	File         string
	Line, Column int
	Summary      string
	Detail       string
	rng          hcl.Range
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Summary)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) diagnostic() *hcl.Diagnostic {
	r := e.rng
	if r.Filename != e.File || r.Start.Line != e.Line || r.Start.Column != e.Column {
		r = hcl.Range{Filename: e.File, Start: hcl.Pos{Line: e.Line, Column: e.Column}, End: hcl.Pos{Line: e.Line, Column: e.Column}}
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: e.Summary, Detail: e.Detail, Subject: &r}
}

func errorAt(r hcl.Range, summary, detail string) *Error {
	return &Error{File: r.Filename, Line: r.Start.Line, Column: r.Start.Column, Summary: summary, Detail: detail, rng: r}
}

// diagAt is an error diagnostic at r, the user's line, whose detail is
// formatted from detail and args.
func diagAt(r hcl.Range, summary string, detail string, args ...any) *hcl.Diagnostic {
	return diagnostic.At(r, summary, fmt.Sprintf(detail, args...))
}

// sources remembers the program's files, relative to the folder the
// program started in, so that positions read as the user sees them and
// diagnostics can quote the line.
var sources = struct {
	sync.Mutex
	dir   string
	files map[string][]byte
}{files: map[string][]byte{}}

func init() {
	sources.dir, _ = os.Getwd()
}

// caller returns the position of the code that called the SDK function
// skip frames up: 1 is the SDK function's caller. The column is that of
// the called function's name on the line (NewFile in builtin.NewFile(...)),
// found in the source, or 1 when the source cannot be read.
func caller(skip int) hcl.Range {
	fr := frames(skip, 2)
	if len(fr) < 2 {
		return hcl.Range{Filename: "(unknown)", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 1}}
	}
	callee, site := fr[0], fr[1]
	name := callee.Function
	// Drop type arguments: tether.Apply[...] and tether.Reference[...].Fields.
	for {
		i := strings.IndexByte(name, '[')
		j := strings.IndexByte(name, ']')
		if i < 0 || j < i {
			break
		}
		name = name[:i] + name[j+1:]
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return position(site.File, site.Line, name)
}

// position makes a range for a line of a file, starting at name on that
// line when name is found there.
func position(file string, line int, name string) hcl.Range {
	rel := relative(file)
	col, width := 1, 0
	if src := sourceOf(file, rel); src != nil {
		text := lineOf(src, line)
		if trimmed := bytes.TrimLeft(text, " \t"); len(trimmed) > 0 {
			col = len(text) - len(trimmed) + 1
		}
		if text != nil && name != "" {
			i := bytes.Index(text, []byte(name+"("))
			if i < 0 {
				// A generic function given its type arguments.
				i = bytes.Index(text, []byte(name+"["))
			}
			if i >= 0 {
				start := i
				// Include a package qualifier: builtin.NewFile.
				if start > 0 && text[start-1] == '.' {
					j := start - 1
					for j > 0 && isIdent(text[j-1]) {
						j--
					}
					start = j
				}
				col, width = start+1, i+len(name)-start
			}
		}
	}
	return hcl.Range{
		Filename: rel,
		Start:    hcl.Pos{Line: line, Column: col},
		End:      hcl.Pos{Line: line, Column: col + width},
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// relative names a source file relative to where the program started,
// as the user sees it; a file elsewhere keeps its full name.
func relative(file string) string {
	if sources.dir == "" || !filepath.IsAbs(file) {
		return file
	}
	rel, err := filepath.Rel(sources.dir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return file
	}
	return filepath.ToSlash(rel)
}

func sourceOf(file, rel string) []byte {
	sources.Lock()
	defer sources.Unlock()
	if src, ok := sources.files[rel]; ok {
		return src
	}
	src, err := os.ReadFile(file)
	if err != nil {
		src = nil
	}
	sources.files[rel] = src
	return src
}

func lineOf(src []byte, line int) []byte {
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return src
}

// sourceFiles returns the text of the files positions were taken from.
func sourceFiles() map[string][]byte {
	sources.Lock()
	defer sources.Unlock()
	out := make(map[string][]byte, len(sources.files))
	for k, v := range sources.files {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// panicSite finds where a recovered panic happened: the first frame of the
// panicking goroutine outside the runtime and this package, preferring one
// in the program's own folder.
func panicSite() (hcl.Range, bool) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	return siteOf(pcs[:n])
}

// siteOf is the program's line among the frames pcs (from
// runtime.Callers): the first frame outside the runtime and this package,
// preferring one in the program's own folder.
func siteOf(pcs []uintptr) (hcl.Range, bool) {
	frames := runtime.CallersFrames(pcs)
	var first *runtime.Frame
	for {
		f, more := nextFrame(frames)
		inRuntime := strings.HasPrefix(f.Function, "runtime.")
		inSDK := inSDK(f.Function) && !strings.Contains(f.File, "_test.go")
		if !inRuntime && !inSDK && f.File != "" {
			if first == nil {
				fc := f
				first = &fc
			}
			if rel := relative(f.File); rel != f.File {
				return position(f.File, f.Line, ""), true
			}
		}
		if !more {
			break
		}
	}
	if first != nil {
		return position(first.File, first.Line, ""), true
	}
	return hcl.Range{}, false
}

// apiPackage is the SDK's public package. Its functions are thin wrappers
// of this package's, so its frames are not counted between an SDK
// function and the program's call (see frames).
const apiPackage = "github.com/tetherhq/tether"

// thisPackage is the import path of this package.
const thisPackage = apiPackage + "/internal/sdk"

// inSDK reports whether a frame's function is the SDK's: the public
// package's or this one's.
func inSDK(function string) bool {
	return strings.HasPrefix(function, apiPackage+".") || strings.HasPrefix(function, thisPackage+".")
}

// nextFrame is it.Next() with the frame's file named in full, as this
// package reads it: see goprogram.SourceFile.
func nextFrame(it *runtime.Frames) (runtime.Frame, bool) {
	f, more := it.Next()
	f.File = goprogram.SourceFile(f.File)
	return f, more
}

// frames returns up to n frames of the calling goroutine's stack, starting
// skip frames above frames' caller (0 is the caller itself), without the
// frames of the public package's wrappers: counted this way, skip is the
// same whether the program called this package directly or through them.
func frames(skip, n int) []runtime.Frame {
	pcs := make([]uintptr, n+skip+16)
	it := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var out []runtime.Frame
	for len(out) < skip+n {
		f, more := nextFrame(it)
		if !strings.HasPrefix(f.Function, apiPackage+".") {
			out = append(out, f)
		}
		if !more {
			break
		}
	}
	if len(out) <= skip {
		return nil
	}
	return out[skip:]
}
