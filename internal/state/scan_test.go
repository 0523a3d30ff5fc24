package state

import (
	"context"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestScanObjects: a scan gives exactly the objects of the types kept,
// each as Load gives it, and stops when asked; a store that is not a
// Scanner is read through Load the same way.
func TestScanObjects(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	var put []*Object
	for _, typ := range []string{"tether_file", "tether_value", "aws_s3_bucket"} {
		for _, name := range []string{"a", "b"} {
			o := testObject(typ + "." + name)
			o.Type = typ
			put = append(put, o)
		}
	}
	data := testObject("data.aws_s3_bucket.a")
	data.Mode, data.Type, data.Dependencies = Data, "aws_s3_bucket", nil
	put = append(put, data)
	commit(t, s, Changes{Put: put})
	want := load(t, s).Objects

	keep := func(m Mode, typ string) bool { return m == Managed && typ != "tether_value" }
	for _, store := range []Store{s, loadOnly{s}} {
		got := map[string]*Object{}
		err := ScanObjects(context.Background(), store, keep, func(o *Object) bool {
			c := *o
			c.Value, c.Private, c.Sensitive = slices.Clone(o.Value), slices.Clone(o.Private), slices.Clone(o.Sensitive)
			got[o.Address] = &c
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		wantAddrs := []string{"aws_s3_bucket.a", "aws_s3_bucket.b", "tether_file.a", "tether_file.b"}
		if addrs := slices.Sorted(maps.Keys(got)); !slices.Equal(addrs, wantAddrs) {
			t.Errorf("%T: scanned %v, want %v", store, addrs, wantAddrs)
		}
		for a, o := range got {
			if !reflect.DeepEqual(o, want[a]) {
				t.Errorf("%T: scanned %+v, Load gives %+v", store, o, want[a])
			}
		}
		n := 0
		if err := ScanObjects(context.Background(), store, keep, func(*Object) bool { n++; return false }); err != nil || n != 1 {
			t.Errorf("%T: a scan asked to stop at the first object went through %d (%v)", store, n, err)
		}
	}
	n := 0
	if err := s.ScanObjects(context.Background(), func(Mode, string) bool { return false }, func(*Object) bool { n++; return true }); err != nil || n != 0 {
		t.Errorf("a scan keeping no type gave %d objects (%v)", n, err)
	}
}

// loadOnly is a store that is not a Scanner.
type loadOnly struct{ Store }
