package codegen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providertest"
)

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"path":            "Path",
		"instance_id":     "InstanceID",
		"http_url":        "HTTPURL",
		"sha256":          "Sha256",
		"type":            "Type",
		"func":            "Func",
		"3d_mode":         "X3dMode",
		"__":              "X",
		"kebab-case.name": "KebabCaseName",
		"ÜberName":        "ÜberName",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"aws": "aws", "type": "typex", "go-cloud": "gocloud", "tether": "tetherx", "9lives": "p9lives", "string": "stringx"} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fileName("resource_", "foo_windows"); got != "resource_foo_windows_.go" {
		t.Errorf("fileName = %q", got)
	}
	if got := fileName("data_", "my_test"); got != "data_my_test_.go" {
		t.Errorf("fileName = %q", got)
	}
}

// tricky has every name clash the rules document.
func tricky() *provider.Schema {
	attr := func(ty cty.Type) *provider.Attribute {
		return &provider.Attribute{Type: ty, Optional: true, Description: "go:generate rm -rf /\n+build ignore"}
	}
	return &provider.Schema{
		Provider: &provider.Block{Attributes: map[string]*provider.Attribute{"region": {Type: cty.String, Required: true}}},
		Resources: provider.NewTypes(map[string]*provider.ResourceSchema{
			"x_thing": {Block: &provider.Block{Attributes: map[string]*provider.Attribute{
				"foo_bar":  attr(cty.String),
				"foo__bar": attr(cty.Number),
				"type":     attr(cty.String),
				"func":     attr(cty.Bool),
				"resource": attr(cty.String),
				"3d":       attr(cty.List(cty.Map(cty.String))),
				"settings": attr(cty.Object(map[string]cty.Type{"range": cty.String, "nested": cty.Object(map[string]cty.Type{"map": cty.Number})})),
				"anything": attr(cty.DynamicPseudoType),
				"pair":     attr(cty.Tuple([]cty.Type{cty.String, cty.Number})),
				"id":       {Type: cty.String, Computed: true},
			}, BlockTypes: map[string]*provider.NestedBlock{
				"rule": {Nesting: provider.NestingMap, Block: provider.Block{Attributes: map[string]*provider.Attribute{"x": attr(cty.String)}}},
				"one":  {Nesting: provider.NestingSingle, MinItems: 1, MaxItems: 1, Block: provider.Block{Attributes: map[string]*provider.Attribute{"y": {Type: cty.String, Required: true}}}},
			}}},
			// Its type name is ThingArgs, which x_thing's args struct takes.
			"x_thing_args":   {Block: &provider.Block{Attributes: map[string]*provider.Attribute{"id": {Type: cty.String, Computed: true}}}},
			"x_provider":     {Block: &provider.Block{}},
			"x_foo_windows":  {Block: &provider.Block{}},
			"x_get_thing":    {Block: &provider.Block{}},
			"x_thing_rule":   {Block: &provider.Block{}},
			"x_new_thing":    {Block: &provider.Block{}},
			"x_weird-name.1": {Block: &provider.Block{}},
		}),
		DataSources: provider.NewTypes(map[string]*provider.ResourceSchema{
			"x_thing": {Block: &provider.Block{Attributes: map[string]*provider.Attribute{
				"name":        {Type: cty.String, Required: true},
				"datasource":  {Type: cty.String, Computed: true},
				"data_source": {Type: cty.String, Computed: true},
			}}},
		}),
	}
}

func generate(t testing.TB, s *provider.Schema, opts Options) map[string]string {
	t.Helper()
	files := map[string]string{}
	var order []string
	if _, err := Generate(s, opts, func(f File) error {
		files[f.Path] = string(f.Content)
		order = append(order, f.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return files
}

func TestRenames(t *testing.T) {
	files := generate(t, tricky(), Options{Provider: "x", Package: "x"})
	all := ""
	for _, c := range files {
		all += c
	}
	for _, want := range []string{
		"\tFooBar tether.NumberInput `tether:\"foo__bar\"`", // foo__bar sorts first
		"\tFooBar2 *string `tether:\"foo_bar\"`",
		"\tType *string `tether:\"type\"`", // keywords need no rename
		"\tFunc *bool `tether:\"func\"`",
		"\tX3d []map[string]string `tether:\"3d\"`",
		"func (r *Thing) Resource2() tether.Output[string]", // the embedded field is Resource
		"func (d *GetThingResultOutput) DataSource2() tether.Output[string]",
		"func (d *GetThingResultOutput) Datasource() tether.Output[string]",
		"func NewThing(scope tether.Scope, id string, args ThingArgs,", // shorter names first
		"type ThingArgs2 struct",                                       // x_thing_args
		"func NewThingArgs2(",                                          //
		"type NewThing2 struct",                                        // x_new_thing
		"type GetThing2 struct",                                        // x_get_thing: the data source x_thing is GetThing
		"func NewProvider2(",                                           // x_provider: NewProvider configures the provider
		"type ThingSettings struct",                                    // the object attribute
		"\tRange *string `tether:\"range\"`",
		"type ThingSettingsNested struct",
		"\tMap tether.NumberInput `tether:\"map\"`",
		"\tAnything any `tether:\"anything\"`",
		"\tPair any `tether:\"pair\"`",
		"\tRule map[string]ThingRule2 `tether:\"rule\"`", // the resource x_thing_rule is ThingRule
		"\tOne *ThingOne `tether:\"one,required\"`",
		"//  go:generate rm -rf /", // not a directive
		"//  +build ignore",
		"type WeirdName1 struct",
		"\tRegion string `tether:\"region,required\"`",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if _, ok := files["resource_foo_windows_.go"]; !ok {
		t.Errorf("files: %v", keys(files))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a := generate(t, tricky(), Options{Provider: "x"})
	b := generate(t, tricky(), Options{Provider: "x"})
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestFromJSON(t *testing.T) {
	doc := `{"format_version":"1.0","provider_schemas":{"registry.terraform.io/acme/cloud":{
	  "provider":{"version":0,"block":{"attributes":{"token":{"type":"string","optional":true,"sensitive":true}}}},
	  "resource_schemas":{"cloud_server":{"version":2,"block":{
	    "attributes":{"name":{"type":"string","required":true,"description":"The name."},
	                  "ports":{"type":["list","number"],"optional":true},
	                  "disks":{"nested_type":{"nesting_mode":"list","attributes":{"size":{"type":"number","required":true},"kind":{"type":"string","optional":true}}},"optional":true},
	                  "id":{"type":"string","computed":true}},
	    "block_types":{"network":{"nesting_mode":"set","block":{"attributes":{"cidr":{"type":"string","required":true}}},"min_items":1}}}}},
	  "data_source_schemas":{"cloud_image":{"version":0,"block":{"attributes":{"name":{"type":"string","required":true},"id":{"type":"string","computed":true}}}}}}}}`
	s, name, source, err := FromJSON([]byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	if name != "cloud" || source != "registry.terraform.io/acme/cloud" {
		t.Errorf("name %q source %q", name, source)
	}
	srv, _, err := s.Resources.Get("cloud_server")
	if srv == nil || err != nil {
		t.Fatal("no cloud_server", err)
	}
	if srv.Version != 2 || !srv.Block.Attributes["name"].Required || srv.Block.BlockTypes["network"].Nesting != provider.NestingSet {
		t.Errorf("cloud_server = %+v", srv.Block)
	}
	disks := srv.Block.Attributes["disks"].Type
	if !disks.IsListType() || !disks.ElementType().IsObjectType() {
		t.Errorf("disks: %#v", disks)
	}
	files := generate(t, s, Options{Provider: name, Source: source})
	for _, want := range []string{"package cloud", "Disks []ServerDisks", "Network []ServerNetwork `tether:\"network,required\"`", "func GetImageOutput("} {
		found := false
		for _, c := range files {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("no %q in generated code", want)
		}
	}
	if _, _, _, err := FromJSON([]byte(`{"format_version":"1.0","provider_schemas":{"a/b":{},"c/d":{}}}`), ""); err == nil || !strings.Contains(err.Error(), "choose one with --provider") {
		t.Errorf("two providers: %v", err)
	}
}

// TestGeneratedCodeCompiles builds what the tricky schema and the
// built-in-sized split produce against the SDK in this repository.
func TestGeneratedCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := tempModule(t)
	if _, err := WriteDir(filepath.Join(dir, "x"), tricky(), Options{Provider: "x", Package: "x"}); err != nil {
		t.Fatal(err)
	}
	small := awsSized()
	only := func(types *provider.Types) *provider.Types {
		m, err := types.All()
		if err != nil {
			t.Fatal(err)
		}
		for name := range m {
			if !strings.HasPrefix(name, "aws_svc00") {
				delete(m, name)
			}
		}
		return provider.NewTypes(m)
	}
	small.Resources, small.DataSources = only(small.Resources), only(small.DataSources)
	if _, err := WriteDir(filepath.Join(dir, "aws"), small, Options{Provider: "aws", Split: SplitGroups}); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "vet", "./...")
}

// tempModule makes a module outside this one that uses the SDK from this
// repository, offline.
func tempModule(t testing.TB) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := fmt.Sprintf("module example.com/gen\n\ngo 1.26\n\nrequire github.com/tetherhq/tether v0.0.0\n\nreplace github.com/tetherhq/tether => %s\n", repo)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func goCmd(t testing.TB, dir string, args ...string) *os.ProcessState {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), providertest.OfflineGoEnv(t)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return cmd.ProcessState
}

// peakHeap samples the live heap while f runs.
func peakHeap(f func()) (peak uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak {
				peak = v
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak
}

// TestAWSSizedSplitsByService generates a provider the size of AWS's and
// checks that it is split into packages by service, so that a program
// compiles only the services it uses. Time and memory are the
// benchmark's to report (BenchmarkGenerateAWSSized), not a test's to
// assert.
func TestAWSSizedSplitsByService(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an AWS-sized provider")
	}
	sum, err := WriteDir(t.TempDir(), awsSized(), Options{Provider: "aws", Source: "registry.terraform.io/hashicorp/aws"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d resources, %d data sources: %d files in %d packages", sum.Resources, sum.DataSources, sum.Files, sum.Packages)
	if sum.Packages < 100 {
		t.Errorf("an AWS-sized provider should be split by service, got %d packages", sum.Packages)
	}
}

// BenchmarkGenerateAWSSized measures generating bindings for an AWS-sized
// provider into a folder: time, and peak live heap as peak-MB.
func BenchmarkGenerateAWSSized(b *testing.B) {
	s := awsSized()
	var bytesOut int64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		var err error
		peak := peakHeap(func() {
			_, err = WriteDir(dir, s, Options{Provider: "aws"})
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak>>20), "peak-MB")
		bytesOut = dirSize(dir)
	}
	b.ReportMetric(float64(bytesOut>>20), "source-MB")
}

// BenchmarkCompileAWSSized builds all the generated packages of an
// AWS-sized provider, reporting the wall time and the go command's peak
// memory, which is that of its largest compile, as maxrss-MB. The SDK and
// its dependencies come from the build cache, as they do for a user; each
// round uses a new module path so that the generated packages themselves
// are compiled every time.
func BenchmarkCompileAWSSized(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := tempModule(b)
		mod := filepath.Join(dir, "go.mod")
		data, _ := os.ReadFile(mod)
		data = bytes.Replace(data, []byte("example.com/gen"), []byte(fmt.Sprintf("example.com/gen%d%d", time.Now().UnixNano(), i)), 1)
		if err := os.WriteFile(mod, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := WriteDir(filepath.Join(dir, "aws"), awsSized(), Options{Provider: "aws"}); err != nil {
			b.Fatal(err)
		}
		// Warm the cache with the SDK, which is not what is measured.
		goCmd(b, dir, "build", SDKImport)
		b.StartTimer()
		start := time.Now()
		ps := goCmd(b, dir, "build", "./...")
		b.ReportMetric(time.Since(start).Seconds(), "build-s")
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			b.ReportMetric(float64(ru.Maxrss>>10), "maxrss-MB")
		}
	}
}

// BenchmarkBuildOneServiceProgram builds a program that uses one service
// package of an AWS-sized provider, as a user's would: only that package
// of the bindings is compiled. maxrss-MB is the largest step, the link.
func BenchmarkBuildOneServiceProgram(b *testing.B) {
	dir := tempModule(b)
	if _, err := WriteDir(filepath.Join(dir, "aws"), awsSized(), Options{Provider: "aws"}); err != nil {
		b.Fatal(err)
	}
	prog := `package main

import (
	"example.com/gen/aws/svc042"
	"github.com/tetherhq/tether"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		svc042.NewThing07(s, "t", svc042.Thing07Args{Setting00Value: "x"})
		return nil
	})
}
`
	if err := os.MkdirAll(filepath.Join(dir, "prog"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prog", "main.go"), []byte(prog), 0o644); err != nil {
		b.Fatal(err)
	}
	goCmd(b, dir, "build", SDKImport)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// Only the service package is new to the cache each round.
		if err := os.WriteFile(filepath.Join(dir, "aws", "svc042", "round.go"), []byte(fmt.Sprintf("package svc042\n\nconst round = %d\n", time.Now().UnixNano())), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		ps := goCmd(b, dir, "build", "-o", filepath.Join(dir, "prog.bin"), "./prog")
		b.ReportMetric(time.Since(start).Seconds(), "build-s")
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			b.ReportMetric(float64(ru.Maxrss>>10), "maxrss-MB")
		}
	}
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
