package addr

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

func TestParseAndFormatRoundTrip(t *testing.T) {
	for _, s := range []string{
		`tether_file.a`,
		`tether_file.a[0]`,
		`tether_file.a["x y"]`,
		`data.tether_file.b`,
		`module.net.tether_file.a`,
		`module.net["eu"].module.sub[2].tether_value.v["k"]`,
	} {
		a, err := ParseInstance(s)
		if err != nil {
			t.Fatalf("ParseInstance(%s): %v", s, err)
		}
		if got := a.String(); got != s {
			t.Errorf("round trip of %s gave %s", s, got)
		}
	}
}

func TestStaticDropsKeys(t *testing.T) {
	a, err := ParseInstance(`module.net["eu"].module.sub[2].tether_value.v["k"]`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Static(), "module.net.module.sub.tether_value.v"; got != want {
		t.Fatalf("Static() = %s, want %s", got, want)
	}
}

func TestParseRejectsNonsense(t *testing.T) {
	for _, s := range []string{``, `tether_file`, `tether_file.a.b`, `module`, `"x"`} {
		if _, err := ParseInstance(s); err == nil {
			t.Errorf("ParseInstance(%q) succeeded, want an error", s)
		}
	}
}

func TestLessIsTerraformsOrder(t *testing.T) {
	want := []string{
		`data.tether_file.r`,
		`data.tether_value.q`,
		`aws_instance.a`,
		`tether_file.a[2]`,
		`tether_file.a[10]`,
		`tether_file.a["x"]`,
		`tether_file.b`,
		`tether_file-x.a`,
		`tether_file_b.a`,
		`tether_value.x["a"]`,
		`module.m.tether_file.a`,
		`module.m[0].tether_file.a`,
		`module.z.tether_file.a`,
		`module.a.module.o.tether_file.a`,
		`module.n["k"].module.o.tether_file.a`,
	}
	for i := range want {
		for j := range want {
			if got := Less(want[i], want[j]); got != (i < j) {
				t.Errorf("Less(%s, %s) = %v, want %v", want[i], want[j], got, i < j)
			}
		}
	}

	// Sort gives the same order, from any order, with addresses that do
	// not parse last.
	type change struct{ addr string }
	got := []change{{"not an address"}}
	for i := len(want) - 1; i >= 0; i -= 2 {
		got = append(got, change{want[i]})
	}
	for i := len(want) - 2; i >= 0; i -= 2 {
		got = append(got, change{want[i]})
	}
	got = append(got, change{"!bad"})
	Sort(got, func(c change) string { return c.addr })
	for i, c := range got {
		w := append(append([]string{}, want...), "!bad", "not an address")[i]
		if c.addr != w {
			t.Errorf("Sort: position %d is %s, want %s", i, c.addr, w)
		}
	}
}

// TestPartsLessIsSplitOrder: a resource address compared whole orders as
// its parts do, one by one, for names with the bytes around a dot's.
func TestPartsLessIsSplitOrder(t *testing.T) {
	words := []string{"a.b", "a.bc", "a.b.c", "ab.c", "a-b.c", "a_b.c", "a.b-c", "a", "b", "a0.x", "a.x0", "data.a.b", "data_a.b", "datab.c", "a/b.c", "a..b", ""}
	splitLess := func(a, b string) bool {
		ra, rb := Split(a), Split(b)
		for i := 0; i < len(ra) && i < len(rb); i++ {
			if ra[i] != rb[i] {
				return ra[i] < rb[i]
			}
		}
		return len(ra) < len(rb)
	}
	for _, a := range words {
		for _, b := range words {
			if got, want := partsLess(a, b), splitLess(a, b); got != want {
				t.Errorf("partsLess(%q, %q) = %v, Split's order says %v", a, b, got, want)
			}
		}
	}
}

// TestSortAllocations: sorting plain addresses makes no list of parts for
// each (at 100,000 changes, 100,000 lists).
func TestSortAllocations(t *testing.T) {
	addrs := make([]string, 200)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("tether_value.r%d", len(addrs)-i)
	}
	work := make([]string, len(addrs))
	n := testing.AllocsPerRun(5, func() {
		copy(work, addrs)
		Sort(work, func(s string) string { return s })
	})
	if n > 5 {
		t.Errorf("sorting %d addresses made %v allocations", len(addrs), n)
	}
}

// TestSortPlainIsLessOrder: addresses of the root module's resources with
// no key, sorted the short way, are in Less's order, equal ones in the
// order they came, as the general way sorts them.
func TestSortPlainIsLessOrder(t *testing.T) {
	type change struct {
		addr string
		n    int
	}
	addrs := []string{"tether_value.r10", "data.tether_file.b", "tether_value.r1", "tether_file-x.a", "tether_file.b",
		"tether_value.r2", "data.tether_value.a", "tether_file_b.a", "aws_instance.a", "tether_value.r1", "tether_value.r10"}
	var in []change
	for i, a := range addrs {
		in = append(in, change{a, i})
	}
	want := slices.Clone(in)
	sort.SliceStable(want, func(i, j int) bool { return Less(want[i].addr, want[j].addr) })
	got := slices.Clone(in)
	if !sortPlain(got, func(c change) string { return c.addr }) {
		t.Fatal("plain addresses not sorted the short way")
	}
	if !slices.Equal(got, want) {
		t.Errorf("sorted the short way: %v, want %v", got, want)
	}
	// One address with a key or a module: left to the general way, s as it was.
	for _, other := range []string{`tether_value.r["k"]`, "module.m.tether_value.a", "tether_value.r[0]"} {
		mixed := append(slices.Clone(in), change{other, -1})
		if sortPlain(mixed, func(c change) string { return c.addr }) || !slices.Equal(mixed[:len(in)], in) {
			t.Errorf("with %s: sorted the short way, or changed", other)
		}
	}
}
