package funcs

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	"golang.org/x/crypto/bcrypt"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/refs"
)

// testVars are the variables test expressions may use.
var testVars = map[string]cty.Value{
	"secret":  cty.StringVal("hunter2").Mark(marks.Sensitive),
	"unknown": cty.UnknownVal(cty.String),
	"secrets": cty.MapVal(map[string]cty.Value{"a": cty.StringVal("x")}).Mark(marks.Sensitive),
}

// evalIn evaluates src with the functions of a configuration in
// testdata, layered with those of run when run is not nil, as hclconfig
// layers them.
func evalIn(t *testing.T, src string, run *Run) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", src, diags)
	}
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	lib := New(dir)
	ctx := &hcl.EvalContext{Variables: testVars, Functions: lib.Functions()}
	if run != nil {
		ctx = ctx.NewChild()
		ctx.Functions = lib.ForRun(*run)
	}
	return expr.Value(ctx)
}

func eval(t *testing.T, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	return evalIn(t, src, nil)
}

// exprCase is an expression and its value as Terraform 1.11 gives it,
// written as its jsonencode (which is cty's, in both).
type exprCase struct{ expr, want string }

func runCases(t *testing.T, cases []exprCase) {
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, diags := eval(t, c.expr)
			if diags.HasErrors() {
				t.Fatalf("%s: %s", c.expr, diags)
			}
			enc, err := stdlib.JSONEncode(got)
			if err != nil {
				t.Fatalf("%s = %#v, which jsonencode refuses: %s", c.expr, got, err)
			}
			if enc.AsString() != c.want {
				t.Errorf("%s\n got: %s\nwant: %s", c.expr, enc.AsString(), c.want)
			}
		})
	}
}

// The expected values below are what `terraform console` of Terraform
// 1.11 prints for jsonencode(EXPR), run in testdata.

var stringCases = []exprCase{
	{`upper("héllo")`, `"HÉLLO"`},
	{`core::lower("ABC")`, `"abc"`},
	{`format("%s|%05.2f|%q", "x", 3.14159, "q")`, `"x|03.14|\"q\""`},
	{`format("%v", tostring(null))`, `"null"`},
	{`formatlist("%s=%d", ["a", "b"], [1, 2])`, `["a=1","b=2"]`},
	{`indent(2, "a\nb")`, `"a\n  b"`},
	{`join("-", ["a", "b"], ["c"])`, `"a-b-c"`},
	{`replace("v1.2.3", "/(\\d+)/", "<$1>")`, `"v\u003c1\u003e.\u003c2\u003e.\u003c3\u003e"`},
	{`split(",", "a,,b")`, `["a","","b"]`},
	{`strrev("héllo")`, `"olléh"`},
	{`substr("hello world", -5, 3)`, `"wor"`},
	{`title("hello world")`, `"Hello World"`},
	{`trim("?!hello?!", "!?")`, `"hello"`},
	{`trimprefix("helloworld", "hello")`, `"world"`},
	{`trimsuffix("helloworld", "world")`, `"hello"`},
	{`trimspace("  x \n")`, `"x"`},
	{`chomp("x\r\n")`, `"x"`},
	{`startswith("hello", "")`, `true`},
	{`endswith("hello", "lo")`, `true`},
	{`strcontains("hello", "ell")`, `true`},
	{`regex("^(?P<a>\\d+)-(?P<b>\\w+)$", "12-ab")`, `{"a":"12","b":"ab"}`},
	{`regexall("[a-z]", "a1b2")`, `["a","b"]`},
}

var numberCases = []exprCase{
	{`abs(-3.5)`, `3.5`},
	{`ceil(1.2)`, `2`},
	{`floor(-1.2)`, `-2`},
	{`log(8, 2)`, `3`},
	{`max(1, 5, 3)`, `5`},
	{`min(1, 5, 3)`, `1`},
	{`parseint("ff", 16)`, `255`},
	{`pow(2, 10)`, `1024`},
	{`signum(-7)`, `-1`},
}

var collectionCases = []exprCase{
	{`element(tolist(["a", "b", "c"]), -1)`, `"c"`},
	{`element(["a", "b", "c"], 4)`, `"b"`},
	{`lookup({a = 1, b = 2}, "b")`, `2`},
	{`lookup({a = 1}, "z", 0)`, `0`},
	{`lookup({a = "x"}, "a")`, `"x"`},
	{`matchkeys(["i-1", "i-2", "i-3"], ["us1", "us2", "us1"], ["us1"])`, `["i-1","i-3"]`},
	{`transpose({a = ["1", "2"], b = ["2", "3"]})`, `{"1":["a"],"2":["a","b"],"3":["b"]}`},
	{`sum([1, 2.5, 3])`, `6.5`},
	{`sum(toset([5, 5, 6]))`, `11`},
	{`alltrue([])`, `true`},
	{`alltrue([true, null])`, `false`},
	{`anytrue([false, null, true])`, `true`},
	{`chunklist([1, 2, 3, 4, 5], 2)`, `[[1,2],[3,4],[5]]`},
	{`coalesce("", null, "b")`, `"b"`},
	{`coalescelist([], ["x"])`, `["x"]`},
	{`compact(["a", "", "b"])`, `["a","b"]`},
	{`concat([1], [2, 3])`, `[1,2,3]`},
	{`contains(["a"], "a")`, `true`},
	{`distinct([1, 1, 2])`, `[1,2]`},
	{`flatten([[1, [2]], [3]])`, `[1,2,3]`},
	{`index(["a", "b"], "b")`, `1`},
	{`keys({b = 1, a = 2})`, `["a","b"]`},
	{`length("héllo")`, `5`},
	{`length({a = 1, b = 2})`, `2`},
	{`merge({a = 1}, {b = 2}, {a = 3})`, `{"a":3,"b":2}`},
	{`one([])`, `null`},
	{`one(["x"])`, `"x"`},
	{`range(1, 10, 3)`, `[1,4,7]`},
	{`reverse([1, 2, 3])`, `[3,2,1]`},
	{`setintersection(["a", "b"], ["b", "c"])`, `["b"]`},
	{`setproduct(["a", "b"], [1, 2])`, `[["a",1],["a",2],["b",1],["b",2]]`},
	{`setsubtract(["a", "b"], ["a"])`, `["b"]`},
	{`setunion(["a"], ["b"])`, `["a","b"]`},
	{`slice(["a", "b", "c", "d"], 1, 3)`, `["b","c"]`},
	{`sort(["b", "a", "c"])`, `["a","b","c"]`},
	{`values({b = 1, a = 2})`, `[2,1]`},
	{`zipmap(["a", "b"], [1, 2])`, `{"a":1,"b":2}`},
}

var encodingCases = []exprCase{
	{`base64encode("Hello, World!")`, `"SGVsbG8sIFdvcmxkIQ=="`},
	{`base64decode("SGVsbG8sIFdvcmxkIQ==")`, `"Hello, World!"`},
	{`base64gzip("hello world")`, `"H4sIAAAAAAAA/8pIzcnJVyjPL8pJAQAAAP//AQAA//+FEUoNCwAAAA=="`},
	{`csvdecode("a,b\n1,2\n")`, `[{"a":"1","b":"2"}]`},
	{`jsondecode("{\"a\":[1,true,null]}")`, `{"a":[1,true,null]}`},
	{`jsonencode({b = [1, "x"], a = null})`, `"{\"a\":null,\"b\":[1,\"x\"]}"`},
	{`textencodebase64("Hello World", "UTF-16LE")`, `"SABlAGwAbABvACAAVwBvAHIAbABkAA=="`},
	{`textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")`, `"Hello World"`},
	{`textencodebase64("héllo", "ISO-8859-1")`, `"aOlsbG8="`},
	{`urlencode("a b/c?d=é&e")`, `"a+b%2Fc%3Fd%3D%C3%A9%26e"`},
	{`yamlencode({a = [1, "x", true, null], b = {c = "multi\nline"}})`, `"\"a\":\n- 1\n- \"x\"\n- true\n- null\n\"b\":\n  \"c\": |-\n    multi\n    line\n"`},
	{`yamldecode("a: [1, x, true, null]\nb:\n  c: 1.5\n")`, `{"a":[1,"x",true,null],"b":{"c":1.5}}`},
	{`yamldecode("- !!str 1\n- 0x10\n- ~\n")`, `["1",16,null]`},
}

var filesystemCases = []exprCase{
	{`file("hello.txt")`, `"Hello, World!\n"`},
	{`filebase64("binary.bin")`, `"//4AYmluYXJ5"`},
	{`fileexists("hello.txt")`, `true`},
	{`fileexists("nope.txt")`, `false`},
	{`fileset("tree", "**/*.txt")`, `["a.txt","sub/c.txt","sub/deep/d.txt"]`},
	{`fileset("tree", "*")`, `["a.txt","b.md"]`},
	{`fileset("tree", "{a,b}.*")`, `["a.txt","b.md"]`},
	{`fileset(".", "tree/sub/**")`, `["tree/sub/c.txt","tree/sub/deep/d.txt"]`},
	{`basename("a/b/c.txt")`, `"c.txt"`},
	{`dirname("a/b/c.txt")`, `"a/b"`},
	{`templatefile("greeting.tftpl", {name = "web", subnets = ["10.0.1.0/24", "10.0.2.0/24"]})`, `"Hello, web!\n- 10.0.1.0/24 (10.0.1.1)\n- 10.0.2.0/24 (10.0.2.1)\n"`},
	{`templatefile("typed.tftpl", {value = {a = [1, 2]}})`, `"{\"a\":[1,2]}"`},
}

var hashCases = []exprCase{
	{`md5("hello")`, `"5d41402abc4b2a76b9719d911017c592"`},
	{`sha1("hello")`, `"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"`},
	{`sha256("hello")`, `"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"`},
	{`sha512("hello")`, `"9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043"`},
	{`base64sha256("hello")`, `"LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="`},
	{`base64sha512("hello")`, `"m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw=="`},
	{`filemd5("binary.bin")`, `"3d586fdc18e191363af3889f8c91558a"`},
	{`filesha1("hello.txt")`, `"60fde9c2310b0d4cad4dab8d126b04387efba289"`},
	{`filesha256("hello.txt")`, `"c98c24b677eff44860afea6f493bbaec5bb1c4cbb209c6fc2bbb47f66ff2ad31"`},
	{`filesha512("hello.txt")`, `"921618bc6d9f8059437c5e0397b13f973ab7c7a7b81f0ca31b70bf448fd800a460b67efda0020088bc97bf7d9da97a9e2ce7b20d46e066462ec44cf60284f9a7"`},
	{`filebase64sha256("binary.bin")`, `"dVj/83Khr4VmD+4DKMALveSS3QfoOo7xjX8KW6GZ5sM="`},
	{`filebase64sha512("hello.txt")`, `"khYYvG2fgFlDfF4Dl7E/lzq3x6e4HwyjG3C/RI/YAKRgtn79oAIAiLyXv32dqXqeLOeyDUbgZkYuxEz2AoT5pw=="`},
	{`uuidv5("dns", "example.com")`, `"cfbff0d1-9375-5685-968c-48ce8b15ae17"`},
	{`uuidv5("6ba7b811-9dad-11d1-80b4-00c04fd430c8", "https://example.com")`, `"4fd35a71-71ef-5a55-a9d9-aa75c889a6d0"`},
}

var networkCases = []exprCase{
	{`cidrhost("10.12.112.0/20", 16)`, `"10.12.112.16"`},
	{`cidrhost("10.12.112.0/20", -1)`, `"10.12.127.255"`},
	{`cidrhost("fd00:fd12:3456:7890::/56", 34)`, `"fd00:fd12:3456:7800::22"`},
	{`cidrnetmask("172.16.0.0/12")`, `"255.240.0.0"`},
	{`cidrsubnet("172.16.0.0/12", 4, 2)`, `"172.18.0.0/16"`},
	{`cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)`, `"fd00:fd12:3456:7800:a200::/72"`},
	{`cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)`, `["10.1.0.0/20","10.1.16.0/20","10.1.32.0/24","10.1.48.0/20"]`},
	{`cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)`, `["fd00:fd12:3456:7800::/72","fd00:fd12:3456:7800:100::/72","fd00:fd12:3456:7800:200::/72","fd00:fd12:3456:7800:300::/88"]`},
	{`cidrhost("010.1.2.0/24", 5)`, `"10.1.2.5"`},
}

var dateTimeCases = []exprCase{
	{`formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")`, `"02 Jan 2018 23:12 UTC"`},
	{`timeadd("2017-11-22T00:00:00Z", "10m")`, `"2017-11-22T00:10:00Z"`},
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00+01:00")`, `0`},
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:01Z")`, `-1`},
	{`timecmp("2017-11-23T00:00:00Z", "2017-11-22T00:00:00Z")`, `1`},
}

var conversionCases = []exprCase{
	{`tobool("true")`, `true`},
	{`tonumber("42")`, `42`},
	{`tostring(5)`, `"5"`},
	{`tolist(["a", 1])`, `["a","1"]`},
	{`toset(["b", "a", "b"])`, `["a","b"]`},
	{`tomap({a = 1, b = "x"})`, `{"a":"1","b":"x"}`},
	{`can(tonumber("x"))`, `false`},
	{`try(tonumber("x"), "fallback")`, `"fallback"`},
	{`issensitive("x")`, `false`},
	{`nonsensitive(sensitive("shown"))`, `"shown"`},
	{`ephemeralasnull({a = 1})`, `{"a":1}`},
}

func TestStrings(t *testing.T)     { runCases(t, stringCases) }
func TestNumbers(t *testing.T)     { runCases(t, numberCases) }
func TestCollections(t *testing.T) { runCases(t, collectionCases) }
func TestEncoding(t *testing.T)    { runCases(t, encodingCases) }
func TestFilesystem(t *testing.T)  { runCases(t, filesystemCases) }
func TestHashCrypto(t *testing.T)  { runCases(t, hashCases) }
func TestIPNetwork(t *testing.T)   { runCases(t, networkCases) }
func TestDateTime(t *testing.T)    { runCases(t, dateTimeCases) }
func TestConversion(t *testing.T)  { runCases(t, conversionCases) }

// TestErrors checks that each call fails, with an error that says what
// Terraform's says.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`sum([])`, "cannot sum an empty list"},
		{`sum(["a"])`, "argument must be list, set, or tuple of number values"},
		{`lookup(tomap({a = "x"}), "b")`, `lookup failed to find key "b"`},
		{`lookup({a = 1}, "b")`, `the given object has no attribute "b"`},
		{`lookup({a = 1, b = "x"}, "c")`, `the given object has no attribute "c"`},
		{`lookup("x", "a")`, "lookup() requires a map as the first argument"},
		{`lookup({a = 1}, "a", "x", "y")`, "lookup() takes two or three arguments, got 4"},
		{`element([], 0)`, "cannot use element function with an empty list"},
		{`matchkeys(["a"], ["x", "y"], ["x"])`, "length of keys and values should be equal"},
		{`index(["a"], "z")`, "not in the list"},
		{`one(["a", "b"])`, "at most one element"},
		{`transpose({a = [null]})`, "input list must not contain null string"},
		{`base64decode("%%%")`, "failed to decode base64 data"},
		{`textencodebase64("x", "NOT-AN-ENCODING")`, `"NOT-AN-ENCODING" is not a supported IANA encoding name or alias`},
		{`textdecodebase64("!!", "UTF-8")`, "invalid base64 symbol at offset 0"},
		{`yamldecode("a: [")`, "on line 1"},
		{`file("missing.txt")`, "no file exists at missing.txt"},
		{`file("binary.bin")`, "contents of binary.bin are not valid UTF-8; use the filebase64 function"},
		{`filemd5("missing.txt")`, "no file exists at missing.txt"},
		{`fileexists("tree")`, "tree is a directory, not a file"},
		{`templatefile("missing.tftpl", {})`, "no file exists at missing.tftpl"},
		{`templatefile("greeting.tftpl", {})`, `vars map does not contain key "name", referenced at greeting.tftpl:1,10-14`},
		{`templatefile("greeting.tftpl", "x")`, "invalid vars value: must be a map"},
		{`templatefile("recursive.tftpl", {})`, "cannot recursively call templatefile from inside another template function"},
		{`uuidv5("bogus", "x")`, "uuidv5() doesn't support namespace bogus"},
		{`cidrhost("10.0.0.0/8", 16777216)`, "prefix of 8 does not accommodate a host numbered 16777216"},
		{`cidrhost("not-a-cidr", 1)`, "invalid CIDR expression"},
		{`cidrnetmask("fd00::/8")`, "IPv6 addresses cannot have a netmask: fd00::/8"},
		{`cidrsubnet("10.0.0.0/30", 4, 0)`, "insufficient address space to extend prefix of 30 by 4"},
		{`cidrsubnets("10.0.0.0/24", 0)`, "must extend prefix by at least one bit"},
		{`cidrsubnets("10.0.0.0/30", 1, 1, 1)`, "not enough remaining address space for a subnet with a prefix of 31 bits after 10.0.0.2/31"},
		{`timecmp("2017-11-22", "2017-11-22T00:00:00Z")`, "not a valid RFC3339 timestamp: missing required time introducer 'T'"},
		{`timecmp("2017-11-22T00:00", "2017-11-22T00:00:00Z")`, `not a valid RFC3339 timestamp: end of string where ":" is expected`},
		{`contains(["a"], null)`, "argument must not be null"},
		{`timeadd("2017-11-22T00:00:00Z", "1x")`, `unknown unit "x"`},
		{`rsadecrypt("bm90IGVuY3J5cHRlZA==", "not a key")`, "invalid private key"},
		{`rsadecrypt("%%%", "not a key")`, "cipher text must be base64-encoded"},
		{`bcrypt("x", 40)`, "cost 40 is outside allowed range (4,31)"},
		{`tonumber("x")`, `cannot convert "x" to number`},
		{`pathexpand("~someone/x")`, "cannot expand user-specific home dir"},
		{`templatestring("literal ${1}", {})`, "to render an inline template, consider using a plain template string expression"},
		{`core::nosuch(1)`, "no function named"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			_, diags := eval(t, c.expr)
			if !diags.HasErrors() {
				t.Fatalf("%s succeeded, want an error saying %q", c.expr, c.want)
			}
			if !strings.Contains(diags.Error(), c.want) {
				t.Errorf("%s: error %q does not say %q", c.expr, diags.Error(), c.want)
			}
		})
	}
}

// TestMarksPassThrough checks that what is computed from a secret stays
// secret, across the families.
func TestMarksPassThrough(t *testing.T) {
	for _, src := range []string{
		`upper(secret)`,
		`sha256(secret)`,
		`base64sha512(secret)`,
		`base64gzip(secret)`,
		`yamlencode({a = secret})`,
		`lookup(secrets, "a")`,
		`lookup({a = 1}, "b", secret)`,
		`lookup(tomap({a = "x"}), "b", secret)`,
		`templatefile("typed.tftpl", {value = secret})`,
		`templatefile("typed.tftpl", {value = {nested = secret}})`,
		`urlencode(secret)`,
		`textencodebase64(secret, "UTF-8")`,
		`uuidv5("dns", secret)`,
		`cidrhost(sensitive("10.0.0.0/8"), 1)`,
		`file(sensitive("hello.txt"))`,
		`fileset(sensitive("tree"), "*")`,
		`nonsensitive(sensitive(secret))`,
	} {
		t.Run(src, func(t *testing.T) {
			got, diags := eval(t, src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			wantSensitive := !strings.HasPrefix(src, "nonsensitive")
			if marks.IsSensitive(got) != wantSensitive {
				t.Errorf("%s: sensitive is %v, want %v", src, marks.IsSensitive(got), wantSensitive)
			}
		})
	}
}

// TestUnknowns checks that an unknown argument gives an unknown result,
// not an error or a guess, and the answers Terraform gives anyway.
func TestUnknowns(t *testing.T) {
	for src, want := range map[string]cty.Value{
		`cidrhost(unknown, 1)`:                           cty.UnknownVal(cty.String),
		`yamlencode({a = unknown})`:                      cty.UnknownVal(cty.String),
		`templatefile("typed.tftpl", {value = unknown})`: cty.UnknownVal(cty.String),
		`templatefile(unknown, {})`:                      cty.DynamicVal,
		`lookup({a = 1}, unknown)`:                       cty.DynamicVal,
		`lookup(tomap({a = 1}), unknown)`:                cty.UnknownVal(cty.Number),
		`issensitive(unknown)`:                           cty.UnknownVal(cty.Bool),
		`issensitive(sensitive(unknown))`:                cty.True,
		`startswith(unknown, "")`:                        cty.True,
		`alltrue([true, unknown == "x"])`:                cty.UnknownVal(cty.Bool),
		`anytrue([unknown == "x", true])`:                cty.True,
		`transpose({a = [unknown]})`:                     cty.UnknownVal(cty.Map(cty.List(cty.String))),
		`fileexists(unknown)`:                            cty.UnknownVal(cty.Bool),
	} {
		got, diags := eval(t, src)
		if diags.HasErrors() {
			t.Errorf("%s: %s", src, diags)
			continue
		}
		got, _ = got.Unmark()
		if got.IsKnown() != want.IsKnown() || (want.IsKnown() && !got.RawEquals(want)) || !got.Type().Equals(want.Type()) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
	}
}

// TestRunFunctions checks the functions whose results depend on the run:
// unknown while planning, as Terraform plans them, except plantimestamp,
// which is the plan's time from plan through apply.
func TestRunFunctions(t *testing.T) {
	planTime := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	planning := &Run{PlanTime: planTime}
	applying := &Run{PlanTime: planTime, Applying: true}
	for _, run := range []*Run{nil, planning, applying} {
		for _, src := range []string{`timestamp()`, `uuid()`, `bcrypt("x")`, `core::timestamp()`, `templatefile("typed.tftpl", {value = uuid()})`} {
			got, diags := evalIn(t, src, run)
			if diags.HasErrors() {
				t.Fatalf("%s: %s", src, diags)
			}
			if applying := run != nil && run.Applying; got.IsKnown() != applying {
				t.Errorf("%s with run %+v: known is %v, want %v", src, run, got.IsKnown(), applying)
			}
		}
		got, diags := evalIn(t, `plantimestamp()`, run)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		want := cty.StringVal("2026-03-04T05:06:07Z")
		if run == nil {
			want = cty.UnknownVal(cty.String)
		}
		if !got.RawEquals(want) && !(got.IsKnown() == want.IsKnown() && !want.IsKnown()) {
			t.Errorf("plantimestamp() with run %+v = %#v, want %#v", run, got, want)
		}
	}

	// A template sees the run's functions too.
	got, diags := evalIn(t, `templatefile("greeting.tftpl", {name = plantimestamp(), subnets = []})`, planning)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got.AsString() != "Hello, 2026-03-04T05:06:07Z!\n" {
		t.Errorf("templatefile with plantimestamp() = %q", got.AsString())
	}
}

// TestImpureProperties checks the functions whose results differ at each
// call by what their results must satisfy.
func TestImpureProperties(t *testing.T) {
	applying := &Run{PlanTime: time.Now(), Applying: true}
	before := time.Now().UTC().Truncate(time.Second)
	got, diags := evalIn(t, `timestamp()`, applying)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ts, err := time.Parse(time.RFC3339, got.AsString())
	if err != nil || !strings.HasSuffix(got.AsString(), "Z") {
		t.Fatalf("timestamp() = %q, not an RFC 3339 time in UTC: %v", got.AsString(), err)
	}
	if after := time.Now().UTC(); ts.Before(before) || ts.After(after) {
		t.Errorf("timestamp() = %s, not between %s and %s", ts, before, after)
	}

	seen := map[string]bool{}
	for range 3 {
		got, diags := evalIn(t, `uuid()`, applying)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		u, err := uuid.Parse(got.AsString())
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || got.AsString() != strings.ToLower(got.AsString()) || len(got.AsString()) != 36 {
			t.Errorf("uuid() = %q, not a random RFC 4122 UUID in canonical form", got.AsString())
		}
		if seen[got.AsString()] {
			t.Errorf("uuid() gave %q twice", got.AsString())
		}
		seen[got.AsString()] = true
	}

	for src, cost := range map[string]int{`bcrypt("s3cret")`: bcrypt.DefaultCost, `bcrypt("s3cret", 5)`: 5} {
		got, diags := evalIn(t, src, applying)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		hash := []byte(got.AsString())
		if err := bcrypt.CompareHashAndPassword(hash, []byte("s3cret")); err != nil {
			t.Errorf("%s = %q, which does not verify: %v", src, hash, err)
		}
		if c, err := bcrypt.Cost(hash); err != nil || c != cost {
			t.Errorf("%s has cost %d, want %d", src, c, cost)
		}
		if !regexp.MustCompile(`^\$2a\$`).Match(hash) {
			t.Errorf("%s = %q, not a $2a$ hash as Terraform's", src, hash)
		}
	}
}

func TestTemplateString(t *testing.T) {
	expr, diags := hclsyntax.ParseExpression([]byte(`templatestring(local.tmpl, {name = "web"})`), "test.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	lib := New(t.TempDir())
	for tmpl, want := range map[string]string{
		"Hello, ${upper(name)}!":       "Hello, WEB!",
		"${file(\"x\")}":               "cannot use filesystem access functions like file in templatestring templates",
		"${templatestring(\"a\", {})}": "cannot recursively call templatestring",
		"${nope}":                      `vars map does not contain key "nope"`,
	} {
		ctx := &hcl.EvalContext{
			Variables: map[string]cty.Value{"local": cty.ObjectVal(map[string]cty.Value{"tmpl": cty.StringVal(tmpl)})},
			Functions: lib.Functions(),
		}
		got, diags := expr.Value(ctx)
		switch {
		case diags.HasErrors() && !strings.Contains(diags.Error(), want):
			t.Errorf("template %q: error %q does not say %q", tmpl, diags.Error(), want)
		case !diags.HasErrors() && got.AsString() != want:
			t.Errorf("template %q = %q, want %q", tmpl, got.AsString(), want)
		}
	}
}

func TestEphemeralAsNull(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"kept":    cty.StringVal("a"),
		"dropped": cty.StringVal("b").Mark(marks.Ephemeral),
		"secret":  cty.StringVal("c").Mark(marks.Sensitive),
	})
	got, err := ephemeralAsNullFunc.Call([]cty.Value{v})
	if err != nil {
		t.Fatal(err)
	}
	if d := got.GetAttr("dropped"); !d.IsNull() || d.HasMark(marks.Ephemeral) {
		t.Errorf("the ephemeral attribute is %#v, want an unmarked null", d)
	}
	if k := got.GetAttr("kept"); !k.RawEquals(cty.StringVal("a")) {
		t.Errorf("the other attribute is %#v", k)
	}
	if s := got.GetAttr("secret"); !s.HasMark(marks.Sensitive) {
		t.Error("the sensitive attribute lost its mark")
	}
}

// TestSignaturesMatchTerraform compares every function's name and
// parameters with Terraform's own table (`terraform metadata functions
// -json`): a configuration that calls one with Terraform's parameters
// must be accepted, and what Terraform lacks must not be offered under
// its name.
func TestSignaturesMatchTerraform(t *testing.T) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not on PATH: the function table is compared with terraform 1.11's")
	}
	cmd := exec.Command(tf, "metadata", "functions", "-json")
	cmd.Env = append(cmd.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(t.TempDir(), "none"), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("terraform metadata functions: %v", err)
	}
	type param struct {
		Name     string          `json:"name"`
		Type     json.RawMessage `json:"type"`
		Nullable bool            `json:"is_nullable"`
	}
	var meta struct {
		Functions map[string]struct {
			Params   []param `json:"parameters"`
			Variadic *param  `json:"variadic_parameter"`
		} `json:"function_signatures"`
	}
	if err := json.Unmarshal(out, &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Functions) < 200 {
		t.Fatalf("terraform lists only %d functions", len(meta.Functions))
	}
	ours := Table(t.TempDir())
	describe := func(fn string, p function.Parameter) param {
		ty := p.Type
		if ty.IsCapsuleType() {
			// Parameters that take an expression, not a value: Terraform
			// lists templatestring's as a string, try's and can's as
			// dynamic.
			ty = cty.DynamicPseudoType
			if strings.HasSuffix(fn, "templatestring") {
				ty = cty.String
			}
		}
		b, err := ty.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return param{Name: p.Name, Type: b, Nullable: p.AllowNull}
	}
	for name, want := range meta.Functions {
		f, ok := ours[name]
		if !ok {
			t.Errorf("%s is missing", name)
			continue
		}
		var got []param
		for _, p := range f.Params() {
			got = append(got, describe(name, p))
		}
		if len(got) != len(want.Params) {
			t.Errorf("%s takes %d parameters, Terraform's %d", name, len(got), len(want.Params))
			continue
		}
		for i := range got {
			if got[i].Name != want.Params[i].Name || string(got[i].Type) != string(want.Params[i].Type) || got[i].Nullable != want.Params[i].Nullable {
				t.Errorf("%s parameter %d is %s %s (nullable %v), Terraform's %s %s (nullable %v)", name, i, got[i].Name, got[i].Type, got[i].Nullable, want.Params[i].Name, want.Params[i].Type, want.Params[i].Nullable)
			}
		}
		switch vp := f.VarParam(); {
		case (vp == nil) != (want.Variadic == nil):
			t.Errorf("%s: variadic is %v here, %v in Terraform", name, vp != nil, want.Variadic != nil)
		case vp != nil:
			if g := describe(name, *vp); g.Name != want.Variadic.Name || string(g.Type) != string(want.Variadic.Type) || g.Nullable != want.Variadic.Nullable {
				t.Errorf("%s variadic parameter is %s %s (nullable %v), Terraform's %s %s (nullable %v)", name, g.Name, g.Type, g.Nullable, want.Variadic.Name, want.Variadic.Type, want.Variadic.Nullable)
			}
		}
	}
	for name := range ours {
		plain := strings.TrimPrefix(name, "core::")
		if _, ok := meta.Functions[name]; !ok && !tetherOnly[plain] {
			t.Errorf("%s is not a Terraform function", name)
		}
	}
}

// tetherOnly are the functions Tether has beyond Terraform's.
var tetherOnly = map[string]bool{
	"convert":        true, // hcl's typeexpr convert(value, type)
	"env_reference":  true,
	"file_reference": true,
	"reference":      true,
}

func TestReferenceFunctionsCompose(t *testing.T) {
	got, diags := eval(t, `env_reference(file_reference("name.txt"))`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, ok := refs.FromValue(got)
	if !ok {
		t.Fatalf("env_reference returned %#v, not a reference", got)
	}
	if d := r.Description(); d != "(reference env (reference file name.txt))" {
		t.Fatalf("description %q", d)
	}
}

func TestFunctionsWithoutReferenceSupportRefuseReferences(t *testing.T) {
	if _, diags := eval(t, `upper(env_reference("X"))`); !diags.HasErrors() {
		t.Fatal("upper accepted a reference")
	}
	if _, diags := eval(t, `env_reference(42)`); !diags.HasErrors() {
		t.Fatal("env_reference accepted a number")
	}
}

// TestDocumentedWhereTerraform111Crashes: where the Terraform 1.11
// binary has a bug that Terraform 1.12 fixed (cty 1.16.1 and 1.16.2),
// the result is the one Terraform's documentation gives.
func TestDocumentedWhereTerraform111Crashes(t *testing.T) {
	runCases(t, []exprCase{
		{`element(["a", "b", "c"], -1)`, `"c"`}, // 1.11: panic in function implementation
		{`element(["a", "b", "c"], -4)`, `"c"`}, // 1.11: the same
		{`format("%v", null)`, `"null"`},        // 1.11: unknown, then null
	})
}
