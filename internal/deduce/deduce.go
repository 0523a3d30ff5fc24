package deduce

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// SDK is the import path of the Go SDK, whose Attr is the one way to read
// an attribute of a resource.
const SDK = "github.com/tetherhq/tether"

// sdkImpl is the package that implements the SDK. The SDK's types
// (Output, Resource) are aliases of its types, so a type seen through
// types.Unalias is declared there.
const sdkImpl = SDK + "/internal/sdk"

// isSDKType reports whether the named type n is the SDK's type name.
func isSDKType(n *types.Named, name string) bool {
	p := n.Obj().Pkg()
	return n.Obj().Name() == name && p != nil && (p.Path() == SDK || p.Path() == sdkImpl)
}

// Func identifies a function of the program the way the Go runtime knows
// it: runtime.FuncForPC(pc).Name(), and the file and line of its entry.
// For a function literal, the line is that of its func keyword.
type Func struct {
	Name string
	File string
	Line int
}

// Request asks what some functions of a program read.
type Request struct {
	// Dir is the folder of the program's main package.
	Dir   string
	Funcs []Func
	// Env is the environment of the go command that lists the packages;
	// nil means this process's.
	Env []string
}

// Position is a place in the program's source. File is absolute.
type Position struct {
	File         string
	Line, Column int
}

func (p Position) String() string {
	if p.File == "" {
		return "(unknown)"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Result holds one FuncResult per requested function, in order.
type Result struct {
	Funcs []FuncResult
}

// FuncResult is what one function reads.
type FuncResult struct {
	// Analyzed is false for a function outside the program's module and
	// the bindings it imports (net/http.NotFound, say): such code cannot
	// read a captured property.
	Analyzed bool
	// Name is the function as the analysis names it, for messages.
	Name     string
	Reads    []Read
	Problems []Problem
	// Opaque are where values the function captured come from what the
	// analysis cannot follow back (the result of a call through
	// reflection): a value made while the program deploys, such as a
	// getter's token, may reach the function there without its read
	// being seen. The SDK decides whether one could.
	Opaque []Problem
}

// Read is one captured-property read the function can reach.
type Read struct {
	// Property is the attribute's schema name: url.
	Property string
	// Getter is what the program's code called: (*builtin.Router).URL, or
	// tether.Attr.
	Getter string
	// Client is set when that was not a plain getter (one returning a
	// tether.Output) but a method that uses the property itself, such as
	// a client of the resource.
	Client bool
	At     Position
	// Expr is the source of the call: router.URL().
	Expr string
	// Origins are the calls that may have declared the resource.
	Origins []Origin
}

// Origin is a call that declares a resource: a constructor of the
// bindings (builtin.NewRouter), or a method that declares one (a router's
// Get declares a function).
type Origin struct {
	At Position
	// Callee is the name of the function or method called: NewRouter.
	Callee string
	Expr   string
	// Via are the calls of the program's own functions, outermost first,
	// that returned the resource (or the object holding it) to the code
	// that reads it: a router declared in a component constructor called
	// twice is the one of the call in Via.
	Via []Position
	// Latest is set when the resource is read from a local variable that
	// each run of its function, or iteration of its loop, makes afresh: of
	// the resources the call declared (a component constructor called in a
	// loop, a loop body), the closure reads the one declared last before
	// the closure was.
	Latest bool
}

// Problem is something the analysis cannot decide.
type Problem struct {
	At   Position
	Expr string
	// Property is the property whose resource could not be found, or ""
	// when the problem is not about one read (reflection).
	Property string
	Reason   string
	// From is where the value that could not be followed comes from,
	// when it is not At.
	From Position
}

// Analyze loads the program in req.Dir and answers for req.Funcs.
func Analyze(req Request) (res *Result, err error) {
	defer func() {
		// A bug here must not take the program down with a stack trace
		// the user cannot act on.
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the deducer failed (a bug in Tether; please report it): %v\n%s", r, debug.Stack())
		}
	}()
	a, err := load(req)
	if err != nil {
		return nil, err
	}
	res = &Result{}
	for _, f := range req.Funcs {
		res.Funcs = append(res.Funcs, a.analyzeFunc(f))
	}
	return res, nil
}

// load lists the program's packages, then loads from source the packages
// of its module that it imports and the bindings (packages importing the
// SDK from outside the module); everything else comes from export data,
// which the go command has from building the program.
func load(req Request) (*analyzer, error) {
	dir, err := filepath.Abs(req.Dir)
	if err != nil {
		return nil, err
	}
	list := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule | packages.NeedFiles,
		Dir:  dir, Env: req.Env,
	}
	pkgs, err := packages.Load(list, ".")
	if err != nil {
		return nil, fmt.Errorf("cannot list the program's packages: %v", err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s holds %d packages, not one main package", dir, len(pkgs))
	}
	main := pkgs[0]
	if err := pkgErrors(main); err != nil {
		return nil, err
	}
	if main.Name != "main" {
		return nil, fmt.Errorf("%s holds package %s, not a main package", dir, main.Name)
	}
	var roots []string
	user := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		switch {
		case isUser(p, main, dir):
			user[p.PkgPath] = true
			roots = append(roots, p.PkgPath)
		case p.PkgPath != SDK && p.Imports[SDK] != nil:
			roots = append(roots, p.PkgPath)
		}
	})
	sort.Strings(roots)
	src := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports | packages.NeedTypes | packages.NeedSyntax |
			packages.NeedTypesInfo | packages.NeedModule | packages.NeedFiles | packages.NeedCompiledGoFiles,
		Dir: dir, Env: req.Env,
	}
	loaded, err := packages.Load(src, roots...)
	if err != nil {
		return nil, fmt.Errorf("cannot load the program's packages: %v", err)
	}
	for _, p := range loaded {
		if err := pkgErrors(p); err != nil {
			return nil, err
		}
	}
	prog, ssaPkgs := ssautil.Packages(loaded, ssa.InstantiateGenerics)
	prog.Build()
	a := newAnalyzer(prog)
	for i, p := range loaded {
		sp := ssaPkgs[i]
		if sp == nil {
			continue
		}
		a.analyzed[sp.Pkg] = true
		if user[p.PkgPath] {
			a.user[sp.Pkg] = true
		}
		if p.PkgPath == main.PkgPath {
			a.mainPkg = sp
		}
		for _, f := range p.Syntax {
			a.files[prog.Fset.File(f.Pos()).Name()] = f
		}
	}
	a.index()
	return a, nil
}

// isUser reports whether p is the program's own code: its module's. When
// that module is the SDK's (its examples and tests), only the packages
// under the program's folder are.
func isUser(p, main *packages.Package, dir string) bool {
	if p.Module == nil || main.Module == nil || p.Module.Path != main.Module.Path {
		return p == main
	}
	if main.Module.Path != SDK {
		return true
	}
	if len(p.GoFiles) == 0 {
		return false
	}
	pdir := filepath.Dir(p.GoFiles[0])
	return pdir == dir || strings.HasPrefix(pdir, dir+string(filepath.Separator))
}

func pkgErrors(p *packages.Package) error {
	if len(p.Errors) == 0 {
		return nil
	}
	var msgs []string
	for _, e := range p.Errors {
		msgs = append(msgs, e.Error())
	}
	return fmt.Errorf("package %s: %s", p.PkgPath, strings.Join(msgs, "; "))
}

// analyzeFunc finds the requested function and what it reads.
func (a *analyzer) analyzeFunc(req Func) FuncResult {
	fns := a.find(req)
	if len(fns) == 0 {
		return FuncResult{Name: req.Name}
	}
	out := &funcOut{seenRead: map[string]bool{}, seenProblem: map[string]bool{}}
	var names []string
	for _, fn := range fns {
		names = append(names, a.funcName(fn))
		a.walk(fn, nil, token.NoPos, nil, out)
	}
	sort.Slice(out.reads, func(i, j int) bool {
		return less(out.reads[i].At, out.reads[j].At, out.reads[i].Property, out.reads[j].Property)
	})
	sort.Slice(out.problems, func(i, j int) bool {
		return less(out.problems[i].At, out.problems[j].At, out.problems[i].Reason, out.problems[j].Reason)
	})
	sort.Slice(out.opaques, func(i, j int) bool {
		return less(out.opaques[i].At, out.opaques[j].At, out.opaques[i].Reason, out.opaques[j].Reason)
	})
	return FuncResult{Analyzed: true, Name: strings.Join(names, " and "), Reads: out.reads, Problems: out.problems, Opaque: out.opaques}
}

func less(a, b Position, x, y string) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Column != b.Column {
		return a.Column < b.Column
	}
	return x < y
}

// find maps a function the runtime names to the SSA functions it can be.
// Source position decides: two function literals on one line cannot be
// told apart, and both are analyzed. A method value's wrapper (T.m-fm)
// has no position of its own and is found by name.
func (a *analyzer) find(req Func) []*ssa.Function {
	if strings.HasSuffix(req.Name, "-fm") {
		if fn := a.methodByRuntimeName(strings.TrimSuffix(req.Name, "-fm")); fn != nil {
			return []*ssa.Function{fn}
		}
		return nil
	}
	file := filepath.Clean(req.File)
	var out []*ssa.Function
	for fn := range a.bodies {
		if fn.Pos() == token.NoPos || !a.analyzed[pkgOf(fn)] {
			continue
		}
		p := a.prog.Fset.Position(fn.Pos())
		if p.Line == req.Line && filepath.Clean(p.Filename) == file {
			out = append(out, fn)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}

// methodByRuntimeName finds a method from a runtime name such as
// example.com/app/web.(*server).handle; the main package is "main" there.
func (a *analyzer) methodByRuntimeName(name string) *ssa.Function {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return nil
	}
	pkgPath, rest := name[:slash+1+dot], name[slash+1+dot+1:]
	recv, method, ok := strings.Cut(rest, ".")
	if !ok {
		return nil
	}
	// (*T).m
	if strings.HasPrefix(recv, "(") {
		recv, method, ok = strings.Cut(strings.TrimPrefix(rest, "("), ").")
		if !ok {
			return nil
		}
	}
	recv = strings.TrimPrefix(recv, "*")
	for pkg := range a.analyzed {
		if pkg.Path() != pkgPath && !(pkgPath == "main" && a.mainPkg != nil && pkg == a.mainPkg.Pkg) {
			continue
		}
		tn, ok := pkg.Scope().Lookup(recv).(*types.TypeName)
		if !ok {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, pkg, method)
		if m, ok := obj.(*types.Func); ok {
			return a.prog.FuncValue(m)
		}
	}
	return nil
}

// funcName names a function for messages: main.main$1 is the first
// function literal in main.
func (a *analyzer) funcName(fn *ssa.Function) string {
	return shortName(fn.String())
}

// shortName drops the directories of package paths:
// (*github.com/tetherhq/tether/builtin.Router).URL is (*builtin.Router).URL.
func shortName(s string) string { return pathDirs.ReplaceAllString(s, "") }

var pathDirs = regexp.MustCompile(`([A-Za-z0-9_.~\-]+/)+`)

func (a *analyzer) position(pos token.Pos) Position {
	if !pos.IsValid() {
		return Position{}
	}
	p := a.prog.Fset.Position(pos)
	return Position{File: p.Filename, Line: p.Line, Column: p.Column}
}

// exprAt is the source of the smallest call expression around pos, or of
// the smallest expression when there is no call.
func (a *analyzer) exprAt(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	f := a.files[a.prog.Fset.Position(pos).Filename]
	if f == nil {
		return ""
	}
	path, _ := astutil.PathEnclosingInterval(f, pos, pos+1)
	var first ast.Expr
	for _, n := range path {
		e, ok := n.(ast.Expr)
		if !ok {
			continue
		}
		if c, ok := e.(*ast.CallExpr); ok {
			return types.ExprString(c)
		}
		if first == nil {
			first = e
		}
	}
	if first == nil {
		return ""
	}
	return types.ExprString(first)
}
