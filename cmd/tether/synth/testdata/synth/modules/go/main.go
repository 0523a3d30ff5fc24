package main

import (
	"fmt"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		first := builtin.NewFile(s, "first", builtin.FileArgs{Path: "out/first.txt", Content: "first"})
		net := tether.Module(s, "net", "../modules/net", map[string]any{
			"prefix": "m",
			"names":  []string{"a", "b", "c"},
			"secret": first.Sha256(),
		}, tether.DependsOn(first))
		count := tether.Attr[int](net, "count")
		builtin.NewFile(s, "after", builtin.FileArgs{Path: "out/after.txt", Content: fmt.Sprintf("%v files\n", count)}, tether.DependsOn(net))
		s.Export("paths", tether.Attr[[]string](net, "paths"))
		s.Export("count", count)
		s.Export("inner_sha", tether.Attr[string](net, "inner_sha"), tether.Sensitive())
		return nil
	})
}
