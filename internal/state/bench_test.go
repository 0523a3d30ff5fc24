package state

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// benchObject is a typical managed resource: about 1 KiB of value.
func benchObject(i int) *Object {
	o := testObject(fmt.Sprintf(`module.app.tether_file.f["%08d"]`, i))
	o.Value = fmt.Appendf(nil, `{"id":"%08d","content":"%0900d","path":"/srv/app/%08d"}`, i, i, i)
	return o
}

func BenchmarkCommitSingle(b *testing.B) {
	s := openTest(b, filepath.Join(b.TempDir(), "state.db"))
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Commit(ctx, Changes{Put: []*Object{benchObject(i)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitConcurrent1000: one op is 1000 goroutines each committing
// one object at once, as the engine does when many resources finish together.
func BenchmarkCommitConcurrent1000(b *testing.B) {
	s := openTest(b, filepath.Join(b.TempDir(), "state.db"))
	ctx := context.Background()
	const n = 1000
	objs := make([]*Object, n)
	before := s.groups.Load()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		for j := range objs {
			objs[j] = benchObject(i*n + j)
		}
		b.StartTimer()
		var wg sync.WaitGroup
		for j := range n {
			wg.Go(func() {
				if err := s.Commit(ctx, Changes{Put: []*Object{objs[j]}}); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(s.groups.Load()-before)/float64(b.N), "txns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/commit")
}

// BenchmarkCommitSingleInto100k shows that a commit's cost does not grow
// with the size of the state: compare with BenchmarkCommitSingle.
func BenchmarkCommitSingleInto100k(b *testing.B) {
	s := openTest(b, filepath.Join(b.TempDir(), "state.db"))
	fill(b, s, 100_000)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Commit(ctx, Changes{Put: []*Object{benchObject(100_000 + i)}}); err != nil {
			b.Fatal(err)
		}
	}
}

func fill(b *testing.B, s *SQLite, n int) {
	for start := 0; start < n; start += 10_000 {
		var c Changes
		for i := start; i < min(n, start+10_000); i++ {
			c.Put = append(c.Put, benchObject(i))
		}
		commit(b, s, c)
	}
}

func BenchmarkLoad100k(b *testing.B) {
	const n = 100_000
	s := openTest(b, filepath.Join(b.TempDir(), "state.db"))
	ctx := context.Background()
	fill(b, s, n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		snap, err := s.Load(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.Objects) != n {
			b.Fatalf("%d objects", len(snap.Objects))
		}
	}
}
