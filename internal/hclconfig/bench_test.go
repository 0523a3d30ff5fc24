package hclconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// BenchmarkLoad10k reads a folder of 10,000 tether_value resources: wide
// (independent) and layered (10 layers, each resource referring to 3 in
// the layer above), so reference resolution is in the figure.
func BenchmarkLoad10k(b *testing.B) {
	const n = 10_000
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	opts := hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}}
	for _, shape := range []string{"wide", "layered"} {
		b.Run(shape, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(benchConfig(shape, n)), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				cfg, diags := hclconfig.Load(dir, opts)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				if len(cfg.Nodes) < n {
					b.Fatalf("%d nodes", len(cfg.Nodes))
				}
			}
		})
	}
}

func benchConfig(shape string, n int) string {
	const layers, fanIn = 10, 3
	width := (n + layers - 1) / layers
	var b strings.Builder
	for i := range n {
		input := fmt.Sprintf("v%d", i)
		if layer, pos := i/width, i%width; shape == "layered" && layer > 0 {
			for k := range fanIn {
				input += fmt.Sprintf("-${tether_value.r%d.id}", (layer-1)*width+(pos+k)%width)
			}
		}
		fmt.Fprintf(&b, "resource \"tether_value\" \"r%d\" {\n  input = %q\n}\n\n", i, input)
	}
	return b.String()
}
