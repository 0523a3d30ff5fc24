package graph

import (
	"context"
	"fmt"
	"testing"
)

// The engine builds, orders and walks one graph per plan and per apply;
// these show what that costs at 100,000 nodes, apart from any provider.

const benchNodes = 100_000

// benchEdges adds the edges of one shape: wide (none), chain (each node
// after the previous) or layered (10 layers, each node after 3 of the layer
// above).
func benchEdges(g *Graph, shape string, n int) {
	switch shape {
	case "chain":
		for i := 1; i < n; i++ {
			g.DependsOn(i, i-1)
		}
	case "layered":
		const layers, fanIn = 10, 3
		width := (n + layers - 1) / layers
		for i := width; i < n; i++ {
			layer, pos := i/width, i%width
			for k := range fanIn {
				g.DependsOn(i, (layer-1)*width+(pos+k)%width)
			}
		}
	}
}

// BenchmarkBuildOrder100k builds a graph of 100,000 nodes, orders it and
// computes the depths the walk schedules by.
func BenchmarkBuildOrder100k(b *testing.B) {
	for _, shape := range []string{"wide", "chain", "layered"} {
		b.Run(shape, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g := New(benchNodes)
				benchEdges(g, shape, benchNodes)
				order, cycle := g.Order()
				if cycle != nil || len(order) != benchNodes {
					b.Fatalf("order of %d nodes, cycle %v", len(order), cycle)
				}
				g.Depths(order)
			}
		})
	}
}

// BenchmarkWalk100k walks 100,000 nodes with a visit that does nothing:
// the scheduler's own cost per node.
func BenchmarkWalk100k(b *testing.B) {
	for _, shape := range []string{"wide", "chain", "layered"} {
		for _, par := range []int{10, 256} {
			b.Run(fmt.Sprintf("%s/parallelism=%d", shape, par), func(b *testing.B) {
				g := New(benchNodes)
				benchEdges(g, shape, benchNodes)
				order, _ := g.Order()
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					g.Walk(ctx, order, par, func(int) bool { return true }, nil)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchNodes), "ns/node")
			})
		}
	}
}
