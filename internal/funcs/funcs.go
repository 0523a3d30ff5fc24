package funcs

import (
	"time"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Run is what the functions whose results depend on the run need to know
// of it.
type Run struct {
	// PlanTime is when the plan being made or applied was made:
	// plantimestamp() returns it, the same while planning and applying.
	// When zero, plantimestamp() is unknown.
	PlanTime time.Time
	// Applying is set while a plan is applied. Until then timestamp(),
	// uuid() and bcrypt() are unknown, as Terraform plans them: their
	// results would differ between plan and apply.
	Applying bool
}

// Library is the built-in functions of one configuration.
type Library struct {
	baseDir string
	base    map[string]function.Function
}

// New returns the functions for a configuration whose root module is in
// baseDir. Relative paths given to file functions are taken from there, as
// Terraform takes them from its working folder (the root module's): a
// module reads its own files through path.module.
func New(baseDir string) *Library {
	l := &Library{baseDir: baseDir}
	l.base = withCoreNames(l.table(Run{}))
	return l
}

// Table returns the functions of New(baseDir) as they are outside a run.
func Table(baseDir string) map[string]function.Function {
	return New(baseDir).Functions()
}

// Functions returns every built-in function by name, and again by its
// core:: name, as evaluated outside a run: the run-dependent functions
// (see ForRun) are unknown there. The map is shared; callers must not
// change it.
func (l *Library) Functions() map[string]function.Function { return l.base }

// ForRun returns the functions whose results depend on the run (the time
// functions, uuid and bcrypt, and the template functions, whose templates
// call them), by plain and core:: name. They are meant to be layered over
// Functions, in a child hcl.EvalContext.
func (l *Library) ForRun(run Run) map[string]function.Function {
	fs := map[string]function.Function{
		"timestamp":     timestampFunc(run),
		"plantimestamp": planTimestampFunc(run),
		"uuid":          uuidFunc(run),
		"bcrypt":        bcryptFunc(run),
	}
	l.addTemplateFuncs(fs)
	return withCoreNames(fs)
}

// table is every built-in function for the given run, by plain name.
func (l *Library) table(run Run) map[string]function.Function {
	fs := map[string]function.Function{
		// Strings.
		"chomp":       stdlib.ChompFunc,
		"endswith":    endsWithFunc,
		"format":      stdlib.FormatFunc,
		"formatlist":  stdlib.FormatListFunc,
		"indent":      stdlib.IndentFunc,
		"join":        stdlib.JoinFunc,
		"lower":       stdlib.LowerFunc,
		"regex":       stdlib.RegexFunc,
		"regexall":    stdlib.RegexAllFunc,
		"replace":     replaceFunc,
		"split":       stdlib.SplitFunc,
		"startswith":  startsWithFunc,
		"strcontains": strContainsFunc,
		"strrev":      stdlib.ReverseFunc,
		"substr":      stdlib.SubstrFunc,
		"title":       stdlib.TitleFunc,
		"trim":        stdlib.TrimFunc,
		"trimprefix":  stdlib.TrimPrefixFunc,
		"trimspace":   stdlib.TrimSpaceFunc,
		"trimsuffix":  stdlib.TrimSuffixFunc,
		"upper":       stdlib.UpperFunc,
		// templatestring and templatefile: see addTemplateFuncs.

		// Numbers.
		"abs":      stdlib.AbsoluteFunc,
		"ceil":     stdlib.CeilFunc,
		"floor":    stdlib.FloorFunc,
		"log":      stdlib.LogFunc,
		"max":      stdlib.MaxFunc,
		"min":      stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc,
		"pow":      stdlib.PowFunc,
		"signum":   stdlib.SignumFunc,

		// Collections.
		"alltrue":         allTrueFunc,
		"anytrue":         anyTrueFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        coalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        containsFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"index":           indexFunc,
		"keys":            stdlib.KeysFunc,
		"length":          lengthFunc,
		"lookup":          lookupFunc,
		"matchkeys":       matchKeysFunc,
		"merge":           stdlib.MergeFunc,
		"one":             oneFunc,
		"range":           stdlib.RangeFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"sum":             sumFunc,
		"transpose":       transposeFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,

		// Encoding.
		"base64decode":     base64DecodeFunc,
		"base64encode":     base64EncodeFunc,
		"base64gzip":       base64GzipFunc,
		"csvdecode":        stdlib.CSVDecodeFunc,
		"jsondecode":       stdlib.JSONDecodeFunc,
		"jsonencode":       stdlib.JSONEncodeFunc,
		"textdecodebase64": textDecodeBase64Func,
		"textencodebase64": textEncodeBase64Func,
		"urlencode":        urlEncodeFunc,
		"yamldecode":       ctyyaml.YAMLDecodeFunc,
		"yamlencode":       ctyyaml.YAMLEncodeFunc,

		// Filesystem.
		"abspath":          absPathFunc(l.baseDir),
		"basename":         pathFunc(basename),
		"dirname":          pathFunc(dirname),
		"file":             fileFunc(l.baseDir, false),
		"filebase64":       fileFunc(l.baseDir, true),
		"fileexists":       fileExistsFunc(l.baseDir),
		"fileset":          fileSetFunc(l.baseDir),
		"pathexpand":       pathExpandFunc,
		"filebase64sha256": fileHashFunc(l.baseDir, sha256Sum, base64Text),
		"filebase64sha512": fileHashFunc(l.baseDir, sha512Sum, base64Text),
		"filemd5":          fileHashFunc(l.baseDir, md5Sum, hexText),
		"filesha1":         fileHashFunc(l.baseDir, sha1Sum, hexText),
		"filesha256":       fileHashFunc(l.baseDir, sha256Sum, hexText),
		"filesha512":       fileHashFunc(l.baseDir, sha512Sum, hexText),

		// Date and time.
		"formatdate":    stdlib.FormatDateFunc,
		"plantimestamp": planTimestampFunc(run),
		"timeadd":       stdlib.TimeAddFunc,
		"timecmp":       timeCmpFunc,
		"timestamp":     timestampFunc(run),

		// Hash and crypto.
		"base64sha256": stringHashFunc(sha256Sum, base64Text),
		"base64sha512": stringHashFunc(sha512Sum, base64Text),
		"bcrypt":       bcryptFunc(run),
		"md5":          stringHashFunc(md5Sum, hexText),
		"rsadecrypt":   rsaDecryptFunc,
		"sha1":         stringHashFunc(sha1Sum, hexText),
		"sha256":       stringHashFunc(sha256Sum, hexText),
		"sha512":       stringHashFunc(sha512Sum, hexText),
		"uuid":         uuidFunc(run),
		"uuidv5":       uuidV5Func,

		// IP network.
		"cidrhost":    cidrHostFunc,
		"cidrnetmask": cidrNetmaskFunc,
		"cidrsubnet":  cidrSubnetFunc,
		"cidrsubnets": cidrSubnetsFunc,

		// Type conversion.
		"can":             tryfunc.CanFunc,
		"convert":         typeexpr.ConvertFunc,
		"ephemeralasnull": ephemeralAsNullFunc,
		"issensitive":     isSensitiveFunc,
		"nonsensitive":    nonsensitiveFunc,
		"sensitive":       sensitiveFunc,
		"tobool":          stdlib.MakeToFunc(cty.Bool),
		"tolist":          stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":           stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":        stdlib.MakeToFunc(cty.Number),
		"toset":           stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":        stdlib.MakeToFunc(cty.String),
		"try":             tryfunc.TryFunc,

		// Tether's references (see internal/refs).
		"env_reference":  referenceFunc("env", "name"),
		"file_reference": referenceFunc("file", "path"),
		"reference":      referenceOfKind,
	}
	l.addTemplateFuncs(fs)
	return fs
}

// withCoreNames returns fs with each function also under its core:: name,
// which Terraform gives every built-in function so that a configuration
// can name it apart from provider::NAME::F functions.
func withCoreNames(fs map[string]function.Function) map[string]function.Function {
	out := make(map[string]function.Function, 2*len(fs))
	for name, f := range fs {
		out[name] = f
		out["core::"+name] = f
	}
	return out
}

func refineNotNull(b *cty.RefinementBuilder) *cty.RefinementBuilder { return b.NotNull() }
