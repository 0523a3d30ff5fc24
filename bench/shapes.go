package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Shapes of configuration the harness generates.
const (
	shapeWide    = "wide"    // N independent resources
	shapeChain   = "chain"   // each resource depends on the previous one
	shapeLayered = "layered" // L layers; each resource depends on fanIn resources of the layer above
	shapeModules = "modules" // module tree: region (for_each) → service (for_each) → resources (for_each)
)

var allShapes = []string{shapeWide, shapeChain, shapeLayered, shapeModules}

const (
	// fanIn is how many resources of the layer above each layered
	// resource depends on.
	fanIn = 3
	// leafSize is how many resources one service module of the modules
	// shape declares.
	leafSize = 10
)

// spec says what to generate.
type spec struct {
	shape   string
	n       int
	layers  int    // layered shape only
	resType string // tether_value or terraform_data
	delayMS int    // tether_value only; 0 for none
	perFile int    // resources per file; 0 for one file
	// changed is the index of the one resource whose input differs from
	// the base configuration, or -1. Resources refer to each other's id,
	// which an in-place update keeps, so nothing downstream changes.
	changed int
}

// changedIndex is the resource the "change one" step edits: one in the
// middle, so that in a chain it has dependencies and dependents.
func changedIndex(n int) int { return n / 2 }

// layerWidth is how many resources each layer of a layered shape holds
// (the last may hold fewer), and layersOf how many layers there really are.
func layerWidth(n, layers int) int {
	if layers < 1 {
		layers = 1
	}
	return (n + layers - 1) / layers
}

func layersOf(n, layers int) int {
	w := layerWidth(n, layers)
	return (n + w - 1) / w
}

// depth is the number of resources on the longest dependency chain.
func depth(shape string, n, layers int) int {
	switch shape {
	case shapeChain:
		return n
	case shapeLayered:
		return layersOf(n, layers)
	}
	return 1
}

// generate writes the configuration into dir: perFile resources to a file
// (all in main.tf when perFile is 0), as a large configuration is usually
// split.
func generate(dir string, s spec) error {
	if s.shape == shapeModules {
		return generateModules(dir, s)
	}
	var (
		f   *os.File
		w   *bufio.Writer
		err error
	)
	closeFile := func() error {
		if f == nil {
			return nil
		}
		ferr := w.Flush()
		if cerr := f.Close(); ferr == nil {
			ferr = cerr
		}
		f = nil
		return ferr
	}
	ref := func(i int) string { return fmt.Sprintf("${%s.r%d.id}", s.resType, i) }
	width := layerWidth(s.n, s.layers)
	for i := range s.n {
		if i == 0 || (s.perFile > 0 && i%s.perFile == 0) {
			if err := closeFile(); err != nil {
				return err
			}
			name := "main.tf"
			if s.perFile > 0 {
				name = fmt.Sprintf("main_%04d.tf", i/s.perFile)
			}
			if f, err = os.Create(filepath.Join(dir, name)); err != nil {
				return err
			}
			w = bufio.NewWriterSize(f, 1<<16)
		}
		input := fmt.Sprintf("v%d", i)
		if i == s.changed {
			input += "-changed"
		}
		switch s.shape {
		case shapeWide:
		case shapeChain:
			if i > 0 {
				input += "-" + ref(i-1)
			}
		case shapeLayered:
			layer, pos := i/width, i%width
			if layer > 0 {
				// Every layer but the last is full, so the one above has
				// width resources.
				for k := range min(fanIn, width) {
					input += "-" + ref((layer-1)*width+(pos+k)%width)
				}
			}
		default:
			closeFile()
			return fmt.Errorf("unknown shape %q", s.shape)
		}
		fmt.Fprintf(w, "resource %q \"r%d\" {\n  input = %q\n", s.resType, i, input)
		if s.delayMS > 0 {
			fmt.Fprintf(w, "  delay_ms = %d\n", s.delayMS)
		}
		w.WriteString("}\n\n")
	}
	return closeFile()
}

// generateModules writes the module tree: the root calls module "region"
// with for_each over a map of regions, each region calls module "service"
// with for_each over its services, and each service declares its
// resources with for_each over a map of key to input. The whole tree is
// one nested map literal in the root, so changing one resource changes one
// map value.
func generateModules(dir string, s spec) error {
	leaves := (s.n + leafSize - 1) / leafSize
	regions := max(1, int(math.Ceil(math.Sqrt(float64(leaves)))))
	perRegion := (leaves + regions - 1) / regions

	var root strings.Builder
	root.WriteString("locals {\n  tree = {\n")
	i := 0
	for g := 0; i < s.n; g++ {
		fmt.Fprintf(&root, "    \"g%d\" = {\n", g)
		for sv := 0; sv < perRegion && i < s.n; sv++ {
			fmt.Fprintf(&root, "      \"s%d\" = {", sv)
			for k := 0; k < leafSize && i < s.n; k, i = k+1, i+1 {
				v := fmt.Sprintf("v%d", i)
				if i == s.changed {
					v += "-changed"
				}
				if k > 0 {
					root.WriteString(",")
				}
				fmt.Fprintf(&root, " \"k%d\" = %q", k, v)
			}
			root.WriteString(" }\n")
		}
		root.WriteString("    }\n")
	}
	root.WriteString("  }\n}\n\n")
	root.WriteString(`module "region" {
  for_each = local.tree
  source   = "./modules/region"
  services = each.value
}
`)

	region := `variable "services" {
  type = map(map(string))
}

module "service" {
  for_each = var.services
  source   = "../service"
  items    = each.value
}
`
	delay := ""
	if s.delayMS > 0 {
		delay = fmt.Sprintf("  delay_ms = %d\n", s.delayMS)
	}
	service := fmt.Sprintf(`variable "items" {
  type = map(string)
}

resource %q "r" {
  for_each = var.items
  input    = each.value
%s}
`, s.resType, delay)

	files := map[string]string{
		"main.tf":                 root.String(),
		"modules/region/main.tf":  region,
		"modules/service/main.tf": service,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
