package tfstate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, file, err string
	}{
		{"v4", `{"version": 4, "terraform_version": "1.11.4", "serial": 3, "lineage": "l", "outputs": {}, "resources": [], "check_results": null}`, ""},
		{"v3", `{"version": 3, "serial": 1, "lineage": "l", "modules": []}`, "it is Terraform state format version 3; Tether reads only version 4"},
		{"no version", `{"serial": 1}`, `not a Terraform state file: it has no "version"`},
		{"not JSON", `resource "a" "b" {}`, "not a Terraform state file"},
		{"unknown field", `{"version": 4, "lineage": "l", "resources": [{"mode": "managed", "type": "a", "name": "b", "provider": "p", "instances": [{"schema_version": 0, "attributes": {}, "surprise": 1}]}]}`, `unknown field "surprise"`},
		{"no lineage", `{"version": 4, "serial": 1}`, "it has no lineage"},
		{"check results", `{"version": 4, "lineage": "l", "check_results": [{"object_kind": "future", "config_addr": "x.y", "status": "pass", "objects": null}, {"object_kind": "check", "config_addr": "check.c", "status": "fail", "objects": [{"object_addr": "check.c", "status": "fail", "failure_messages": ["m"]}]}]}`, ""},
		{"check status", `{"version": 4, "lineage": "l", "check_results": [{"object_kind": "check", "config_addr": "check.c", "status": "fail", "objects": [{"object_addr": "check.c", "status": "broken"}]}]}`, `check results of check.c: unknown status "broken"`},
		{"check field", `{"version": 4, "lineage": "l", "check_results": [{"object_kind": "check", "config_addr": "check.c", "status": "pass", "objects": null, "surprise": 1}]}`, `unknown field "surprise"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.file))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("got error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestAddressRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		res  Resource
		key  string
		want string
	}{
		{Resource{Mode: "managed", Type: "tether_file", Name: "a"}, "", "tether_file.a"},
		{Resource{Mode: "managed", Type: "tether_file", Name: "a"}, "3", "tether_file.a[3]"},
		{Resource{Mode: "managed", Type: "tether_file", Name: "a"}, `"x.y"`, `tether_file.a["x.y"]`},
		{Resource{Module: `module.net["eu"].module.sub`, Mode: "managed", Type: "tether_file", Name: "a"}, "0", `module.net["eu"].module.sub.tether_file.a[0]`},
		{Resource{Mode: "data", Type: "local_file", Name: "in"}, "", "data.local_file.in"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			inst := &Instance{}
			if tc.key != "" {
				inst.IndexKey = json.RawMessage(tc.key)
			}
			got, err := tc.res.Address(inst)
			if err != nil || got != tc.want {
				t.Fatalf("Address: %q, %v; want %q", got, err, tc.want)
			}
			module, mode, typ, name, key, err := Split(got)
			if err != nil {
				t.Fatal(err)
			}
			if module != tc.res.Module || mode != tc.res.Mode || typ != tc.res.Type || name != tc.res.Name || string(key) != tc.key {
				t.Errorf("Split(%s) = %q %q %q %q %s", got, module, mode, typ, name, key)
			}
		})
	}
	for _, bad := range []string{`1.5`, `-1`, `true`, `{"a":1}`} {
		if a, err := (&Resource{Mode: "managed", Type: "t", Name: "n"}).Address(&Instance{IndexKey: json.RawMessage(bad)}); err == nil {
			t.Errorf("index key %s accepted as %s", bad, a)
		}
	}
}

// TestPaths reads sensitive_attributes as terraform 1.11 writes them and
// writes them back the same.
func TestPaths(t *testing.T) {
	const written = `[[{"type":"get_attr","value":"content"}],[{"type":"get_attr","value":"rule"},{"type":"index","value":{"value":0,"type":"number"}},{"type":"get_attr","value":"key"}],[{"type":"get_attr","value":"tags"},{"type":"index","value":{"value":"owner","type":"string"}}]]`
	paths, err := DecodePaths(json.RawMessage(written))
	if err != nil {
		t.Fatal(err)
	}
	want := []cty.Path{
		cty.GetAttrPath("content"),
		cty.GetAttrPath("rule").Index(cty.NumberIntVal(0)).GetAttr("key"),
		cty.GetAttrPath("tags").Index(cty.StringVal("owner")),
	}
	if len(paths) != len(want) {
		t.Fatalf("got %d paths, want %d", len(paths), len(want))
	}
	for i := range want {
		if !paths[i].Equals(want[i]) {
			t.Errorf("path %d: got %#v, want %#v", i, paths[i], want[i])
		}
	}
	back, err := EncodePaths(paths)
	if err != nil || string(back) != written {
		t.Errorf("written back as %s (%v)\nwant %s", back, err, written)
	}
	if empty, _ := EncodePaths(nil); string(empty) != "[]" {
		t.Errorf("no paths written as %s, want []", empty)
	}
	if _, err := DecodePaths(json.RawMessage(`[[{"type":"splat","value":1}]]`)); err == nil {
		t.Error("an unknown step type was accepted")
	}
}

func TestWriteOrder(t *testing.T) {
	f := &File{Version: Version, Lineage: "l", Resources: []Resource{
		{Module: "module.b", Mode: "managed", Type: "t", Name: "x"},
		{Mode: "managed", Type: "t", Name: "y"},
		{Mode: "data", Type: "t", Name: "z"},
		{Mode: "managed", Type: "s", Name: "z"},
	}}
	var b bytes.Buffer
	if err := Write(&b, f); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range f.Resources {
		order = append(order, r.Module+"/"+r.Mode+"."+r.Type+"."+r.Name)
	}
	if got, want := strings.Join(order, " "), "/data.t.z /managed.s.z /managed.t.y module.b/managed.t.x"; got != want {
		t.Errorf("resources in order %s, want %s", got, want)
	}
	if !strings.HasSuffix(b.String(), "\"check_results\": null\n}\n") {
		t.Errorf("not written as Terraform writes it:\n%s", b.String())
	}
}
