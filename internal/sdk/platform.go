package sdk

import (
	"strconv"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
)

// Platform is where a stack's functions, routers and stores are deployed:
// Local (the default) or AWS. The command's --platform overrides the
// program's choice.
type Platform interface {
	platform(at hcl.Range) *config.Platform
}

// Local runs functions, routers and stores as processes on this machine
// (the built-in provider's local runtime).
type Local struct{}

func (Local) platform(at hcl.Range) *config.Platform {
	return &config.Platform{Name: "local", DeclRange: at}
}

// AWS is tether.AWS, field for field: the root converts one to the other
// (the conversion stops compiling if the two part). The fields are
// documented there.
type AWS struct {
	Region  string
	Profile string
	Tags    map[string]string
	Prefix  string
	Offline bool
}

func (a AWS) platform(at hcl.Range) *config.Platform {
	p := &config.Platform{Name: "aws", Settings: map[string]string{}, Tags: a.Tags, DeclRange: at}
	for k, v := range map[string]string{"region": a.Region, "profile": a.Profile, "prefix": a.Prefix} {
		if v != "" {
			p.Settings[k] = v
		}
	}
	if a.Offline {
		p.Settings["offline"] = strconv.FormatBool(a.Offline)
	}
	return p
}

// Platform chooses where the stack's functions, routers and stores are
// deployed (Local unless a program says otherwise). It is called once,
// while the program's function runs; a second call, or one made after the
// function returned, is an error at the call.
func (s *Stack) Platform(p Platform) {
	pos := caller(1)
	if s == nil {
		scopeOf(nil, pos, "Platform")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.returned:
		s.report(diagAt(pos, "Called after the program's function returned", "Platform was called after the program's function returned. Choose the platform while the function given to tether.Main runs."))
	case p == nil:
		s.report(diagAt(pos, "Nil platform", "Platform was given nil: give it tether.Local{} or tether.AWS{...}."))
	case s.platform != nil:
		s.report(diagAt(pos, "Platform chosen twice", "The stack's platform was already chosen at %s.", posString(s.platform.DeclRange)))
	default:
		s.platform = p.platform(pos)
	}
}
