package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	_ "modernc.org/sqlite" // the driver Tether's state uses
)

// The floor is the least work any engine must do for the wide shape's first
// apply and no-op plan, done by one plain Go program: parse every .tf file
// of the folder with hclsyntax.ParseConfig (as Tether's front-end does),
// evaluate each resource block's attributes, and JSON-encode the object with
// go-cty; the first apply inserts each into SQLite (WAL, synchronous=NORMAL,
// as Tether's state) in one transaction; the no-op plan reads every row back,
// decodes it with go-cty and compares it with the configuration's object.
// No graph, no provider, no schema, no output: Tether ÷ floor is what the
// engine costs above parsing and storing the same configuration.
//
// The harness runs the floor as a copy of itself (floorEnv set to the
// step), so that its CPU and peak memory are one process's, measured as a
// tool's.
const floorEnv = "TETHER_BENCH_FLOOR"

const (
	floorApply = "apply"
	floorPlan  = "plan"
	floorDB    = "floor.db"
)

// newFloor runs the floor as a tool: the first apply and the no-op plan
// only (the other steps are not in its steps, and are not run).
func newFloor(self string) *tool {
	return &tool{
		name: "floor", bin: self, resType: "tether_value",
		env: append(os.Environ(), floorEnv+"=1"),
		steps: map[string][]string{
			stepApply: {floorApply},
			stepPlan:  {floorPlan},
		},
	}
}

// floorMain is the floor's process: args[0] is the step, run in the
// working directory.
func floorMain(args []string) int {
	if len(args) != 1 || (args[0] != floorApply && args[0] != floorPlan) {
		fmt.Fprintf(os.Stderr, "floor: want %s or %s, got %q\n", floorApply, floorPlan, args)
		return 2
	}
	var err error
	switch args[0] {
	case floorApply:
		var n int
		if n, err = floorApplyDir("."); err == nil {
			// The line the harness checks a first apply printed.
			fmt.Printf("Resources: %d added, 0 changed, 0 destroyed.\n", n)
		}
	case floorPlan:
		var differ int
		if differ, err = floorPlanDir("."); err == nil && differ > 0 {
			fmt.Printf("%d objects differ from the configuration\n", differ)
			return 2 // as plan --detailed-exitcode
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		return 1
	}
	fmt.Println("No changes.")
	return 0
}

// floorObject is one resource block evaluated: its address and value.
type floorObject struct {
	addr string
	val  cty.Value
}

// floorConfig parses every .tf file of dir and evaluates each resource
// block's attributes (no references: the wide shape has none), calling
// each with the objects in file order.
func floorConfig(dir string, each func(floorObject) error) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			return diags
		}
		for _, block := range f.Body.(*hclsyntax.Body).Blocks {
			if block.Type != "resource" || len(block.Labels) != 2 {
				return fmt.Errorf("%s: the floor reads resource blocks only, not %s", block.DefRange(), block.Type)
			}
			attrs := make(map[string]cty.Value, len(block.Body.Attributes))
			for name, attr := range block.Body.Attributes {
				v, diags := attr.Expr.Value(nil)
				if diags.HasErrors() {
					return diags
				}
				attrs[name] = v
			}
			if err := each(floorObject{addr: block.Labels[0] + "." + block.Labels[1], val: cty.ObjectVal(attrs)}); err != nil {
				return err
			}
		}
	}
	return nil
}

func floorOpen(dir string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, floorDB)+"?_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS objects (addr TEXT PRIMARY KEY, value BLOB NOT NULL)"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// floorApplyDir stores every object of the configuration in one
// transaction and returns how many it stored.
func floorApplyDir(dir string) (int, error) {
	db, err := floorOpen(dir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO objects (addr, value) VALUES (?, ?)")
	if err != nil {
		return 0, err
	}
	n := 0
	err = floorConfig(dir, func(o floorObject) error {
		js, err := ctyjson.Marshal(o.val, o.val.Type())
		if err != nil {
			return fmt.Errorf("%s: %w", o.addr, err)
		}
		n++
		_, err = ins.ExecContext(ctx, o.addr, js)
		return err
	})
	if err != nil {
		return 0, err
	}
	ins.Close()
	return n, tx.Commit()
}

// floorPlanDir evaluates the configuration, reads every stored row,
// decodes it and compares it with the configuration's object; it returns
// how many objects differ, are missing or are not configured.
func floorPlanDir(dir string) (int, error) {
	config := map[string]cty.Value{}
	if err := floorConfig(dir, func(o floorObject) error {
		config[o.addr] = o.val
		return nil
	}); err != nil {
		return 0, err
	}
	db, err := floorOpen(dir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	rows, err := db.Query("SELECT addr, value FROM objects")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	differ := 0
	var addr string
	var js []byte
	for rows.Next() {
		if err := rows.Scan(&addr, &js); err != nil {
			return 0, err
		}
		want, ok := config[addr]
		if !ok {
			differ++ // to be destroyed
			continue
		}
		delete(config, addr)
		got, err := ctyjson.Unmarshal(js, want.Type())
		if err != nil {
			return 0, fmt.Errorf("%s: %w", addr, err)
		}
		if !got.RawEquals(want) {
			differ++
		}
	}
	return differ + len(config), rows.Err()
}

// floorTable sets Tether beside the floor and the peers, wide shape by size.
func (r *report) floorTable(b *strings.Builder) {
	if !r.has("floor") && !r.has("tofu") {
		return
	}
	var rows bytes.Buffer
	var failures []string // the floor's and OpenTofu's (the steps table lists Terraform's)
	for _, c := range r.cases {
		for _, step := range []string{stepApply, stepPlan} {
			tm, tok := c.get("tether", step)
			if !tok || !tm.ok() {
				continue
			}
			row := []string{c.shape, fmt.Sprint(c.n), step, secs(tm.CPU), fmt.Sprintf("%.0f", mib(tm.MaxRSS))}
			switch fm, ok := c.get("floor", step); {
			case ok && fm.ok():
				row = append(row, secs(fm.CPU), fmt.Sprintf("%.0f", mib(fm.MaxRSS)),
					fmt.Sprintf("%.2f", tm.CPU.Seconds()/fm.CPU.Seconds()), fmt.Sprintf("%.2f", float64(tm.MaxRSS)/float64(max(1, fm.MaxRSS))))
			case ok:
				row = append(row, "failed", "", "", "")
				failures = append(failures, fmt.Sprintf("- %s %d, floor, %s: %s", c.shape, c.n, step, fm.Err))
			default:
				row = append(row, "—", "—", "—", "—")
			}
			for _, peer := range []string{"tofu", "terraform"} {
				switch pm, ok := c.get(peer, step); {
				case ok && pm.ok():
					row = append(row, ratio(pm.Wall.Seconds()/tm.Wall.Seconds()), ratio(pm.CPU.Seconds()/tm.CPU.Seconds()))
				case ok && peer == "tofu":
					row = append(row, "failed", "")
					failures = append(failures, fmt.Sprintf("- %s %d, tofu, %s: %s", c.shape, c.n, step, pm.Err))
				default:
					row = append(row, "—", "—")
				}
			}
			rows.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	if rows.Len() == 0 {
		return
	}
	b.WriteString("## Tether beside the floor and its peers\n\n")
	b.WriteString("The floor parses, evaluates and stores the same configuration as one plain Go program (bench/floor.go): " +
		"Tether ÷ floor is what the engine costs above that, CPU and peak memory of each process in the same run. " +
		"OpenTofu (`tofu` on the PATH) and Terraform are shown as peer ÷ Tether, wall and CPU.\n\n")
	b.WriteString("| shape | N | step | tether CPU s | tether peak MiB | floor CPU s | floor peak MiB | tether÷floor CPU | tether÷floor peak | tofu/tether wall | tofu/tether CPU | TF/tether wall | TF/tether CPU |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	b.Write(rows.Bytes())
	b.WriteString("\n")
	if len(failures) > 0 {
		b.WriteString("Failures:\n\n" + strings.Join(failures, "\n") + "\n\n")
	}
}

// addPeers adds OpenTofu, when asked for and a tofu binary is on the PATH,
// and the floor, when asked for.
func (h *harness) addPeers(ctx context.Context, wantTofu, wantFloor bool) error {
	if wantTofu {
		if bin, err := exec.LookPath("tofu"); err != nil {
			fmt.Fprintln(os.Stderr, "tofu is not on the PATH; OpenTofu not measured")
		} else {
			t := newTerraform(bin, filepath.Join(h.tmp, "terraformrc"), h.parallelism)
			t.name = "tofu"
			if err := os.WriteFile(filepath.Join(h.tmp, "terraformrc"), nil, 0o644); err != nil {
				return err
			}
			h.tools = append(h.tools, t)
			fmt.Fprintf(os.Stderr, "OpenTofu: %s\n", terraformVersion(ctx, bin))
		}
	}
	if wantFloor {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("the floor runs a copy of the harness: %w", err)
		}
		h.tools = append(h.tools, newFloor(self))
	}
	return nil
}

// notRunFor says why a tool does not run a shape: the floor reads the wide
// shape only (no references, no modules).
func notRunFor(t *tool, shape string) string {
	if t.name == "floor" && shape != shapeWide {
		return "the floor reads the wide shape only"
	}
	return ""
}
