package checks

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in   []Status
		want Status
	}{
		{nil, Pass},
		{[]Status{Pass, Pass}, Pass},
		{[]Status{Pass, Unknown}, Unknown},
		{[]Status{Unknown, Fail, Pass}, Fail},
		{[]Status{Fail, Error, Unknown}, Error},
	} {
		if got := Summarize(tc.in...); got != tc.want {
			t.Errorf("Summarize(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	rs := []Result{
		{Kind: Resource, ConfigAddr: "tether_file.f", Status: Pass, Objects: []Object{{Addr: "tether_file.f[1]", Status: Pass}, {Addr: "tether_file.f[0]", Status: Pass}}},
		{Kind: Check, ConfigAddr: "check.c", Status: Fail, Objects: []Object{{Addr: "check.c", Status: Fail, FailureMessages: []string{"a", "b"}}}},
		{Kind: Output, ConfigAddr: "module.m.output.o", Status: Unknown},
	}
	b, err := Encode(rs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"object_kind":"check","config_addr":"check.c","status":"fail","objects":[{"object_addr":"check.c","status":"fail","failure_messages":["a","b"]}]},` +
		`{"object_kind":"output","config_addr":"module.m.output.o","status":"unknown","objects":null},` +
		`{"object_kind":"resource","config_addr":"tether_file.f","status":"pass","objects":[{"object_addr":"tether_file.f[0]","status":"pass"},{"object_addr":"tether_file.f[1]","status":"pass"}]}]`
	if string(b) != want {
		t.Errorf("Encode:\n got %s\nwant %s", b, want)
	}
	back, err := Decode(b)
	if err != nil || len(back) != 3 || back[2].Objects[0].Addr != "tether_file.f[0]" {
		t.Errorf("Decode: %+v, %v", back, err)
	}
	if b, err := Encode(nil); b != nil || err != nil {
		t.Errorf("Encode(nil) = %q, %v", b, err)
	}
	for _, bad := range []struct{ in, err string }{
		{`{}`, "cannot unmarshal"},
		{`[{"object_kind":"var","status":"pass"}]`, "has no config_addr"},
		{`[{"object_kind":"var","config_addr":"var.x","status":"maybe"}]`, `unknown status "maybe"`},
	} {
		if _, err := Decode([]byte(bad.in)); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("Decode(%s): %v, want %q", bad.in, err, bad.err)
		}
	}
}
