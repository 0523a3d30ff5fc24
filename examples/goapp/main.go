package main

import (
	"fmt"
	"strings"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

// Site is a component: a page and a file holding its checksum, kept
// together under one folder. Resources declared in it have addresses under
// module.<id>, like those of a module.
type Site struct {
	*tether.Component
	Page *builtin.File
}

// SiteArgs configure a Site. Body may hold lazy values (tokens).
type SiteArgs struct {
	Dir, Title, Body string
}

// NewSite declares a Site with the given id in scope.
func NewSite(scope tether.Scope, id string, args SiteArgs) *Site {
	site := &Site{Component: tether.NewComponent(scope, id)}
	site.Page = builtin.NewFile(site, "page", builtin.FileArgs{
		Path:    args.Dir + "/index.html",
		Content: fmt.Sprintf("<h1>%s</h1>\n<pre>%s</pre>\n", args.Title, args.Body),
	})
	builtin.NewFile(site, "checksum", builtin.FileArgs{
		Path:    args.Dir + "/index.html.sha256",
		Content: site.Page.Sha256().String() + "\n",
	})
	return site
}

func main() {
	tether.Main(func(s *tether.Stack) error {
		suffix := builtin.NewRandom(s, "suffix", builtin.RandomArgs{Length: tether.Int(8)})
		greeting := builtin.NewFile(s, "greeting", builtin.FileArgs{
			Path:    "out/greeting.txt",
			Content: "Hello, world-" + suffix.Result().String() + "!\n",
		})
		settings := builtin.NewValue(s, "settings", builtin.ValueArgs{
			Input: map[string]any{"greeting_sha256": greeting.Sha256(), "replicas": 3},
		})
		// The file is read back once it is written: it has no value of the
		// greeting to wait on, only DependsOn.
		readback := builtin.GetFileOutput(s, "readback", builtin.GetFileArgs{Path: "out/greeting.txt"},
			tether.DependsOn(greeting))
		site := NewSite(s, "site", SiteArgs{Dir: "out/site", Title: "Welcome", Body: readback.Content().String()})

		words := tether.Apply(readback.Content(), func(c string) int { return len(strings.Fields(c)) })
		builtin.NewFile(s, "summary", builtin.FileArgs{
			Path:           "out/summary.txt",
			Content:        fmt.Sprintf("%swords: %v\nsettings: %v\n", readback.Content(), words, settings.ID()),
			FilePermission: tether.String("0600"),
		})

		s.Export("greeting_path", greeting.Path())
		s.Export("site_page", site.Page.Path())
		return nil
	})
}
