package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/platform/aws"
	"github.com/tetherhq/tether/internal/state"
)

// TestPlatformOfReadsOnlyTellingObjects: the platform a state was applied
// with is read from the objects of the types that tell, without a Load of
// the whole state (which the run then loads again once it holds the
// lock), and is the same answer a snapshot gave.
func TestPlatformOfReadsOnlyTellingObjects(t *testing.T) {
	obj := func(addr, typ, value string) *state.Object {
		return &state.Object{Address: addr, Mode: state.Managed, Type: typ, Provider: "p", Value: []byte(value), Status: state.Ready}
	}
	tagged := fmt.Sprintf(`{"id":"b","tags":{%q:%q}}`, aws.PlatformTag, aws.Name)
	for _, tc := range []struct {
		name string
		objs []*state.Object
		want string
	}{
		{"none", []*state.Object{obj("tether_value.a", "tether_value", `{}`)}, ""},
		{"local", []*state.Object{obj("tether_value.a", "tether_value", `{}`), obj("tether_kv.s", "tether_kv", `{}`)}, "local"},
		{"aws", []*state.Object{obj("aws_s3_bucket.b", "aws_s3_bucket", tagged), obj("aws_s3_bucket.c", "aws_s3_bucket", `{"id":"c"}`)}, aws.Name},
		{"aws untagged", []*state.Object{obj("aws_s3_bucket.c", "aws_s3_bucket", `{"id":"c","tags":{"x":"y"}}`)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := state.OpenSQLite(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Commit(context.Background(), state.Changes{Put: tc.objs}); err != nil {
				t.Fatal(err)
			}
			store := &countLoads{SQLite: s}
			got, err := platformOf(context.Background(), store)
			if err != nil || got != tc.want {
				t.Errorf("platformOf = %q, %v; want %q", got, err, tc.want)
			}
			if store.loads != 0 {
				t.Errorf("the whole state was loaded %d times to find its platform", store.loads)
			}
		})
	}
}

type countLoads struct {
	*state.SQLite
	loads int
}

func (c *countLoads) Load(ctx context.Context) (*state.Snapshot, error) {
	c.loads++
	return c.SQLite.Load(ctx)
}
