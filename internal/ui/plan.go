package ui

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

// Options controls how a plan is rendered.
type Options struct {
	// Color adds ANSI colours. Callers set it only for a terminal that has
	// not asked for NO_COLOR, since the codes are noise in files and logs.
	Color bool
}

// RenderPlan writes p to w the way Terraform shows a plan: changes made
// outside Tether, then each resource change with an attribute diff, then
// output changes, and last a one-line summary. Changes are shown in the
// order the plan lists them.
func RenderPlan(w io.Writer, p *plan.Plan, opts Options) error {
	if p == nil {
		p = &plan.Plan{}
	}
	pr := &printer{out: w, color: opts.Color, symbols: true}
	pr.plan(p)
	return pr.flush()
}

// RenderObject writes v, an object as stored for the resource instance at
// addr, as `tether state show` prints it: every non-null attribute, no
// action symbols, sensitive values hidden.
func RenderObject(w io.Writer, addr string, v cty.Value, schema *provider.Block) error {
	p := &printer{out: w}
	p.str("# ")
	p.safe(addr)
	p.byte(':')
	p.nl()
	data, typ, name, _ := splitAddr(addr)
	if typ == "" {
		typ = addr
	}
	p.head(data, typ, name)
	p.byte(' ')
	p.body(v, v, same, schema)
	p.nl()
	return p.flush()
}

func (p *printer) plan(pl *plan.Plan) {
	first := true
	section := func() {
		if !first {
			p.nl()
		}
		first = false
	}

	drift := 0
	for _, d := range pl.Drift {
		if drifted(d) {
			drift++
		}
	}
	if drift > 0 {
		section()
		p.colored(ansiBold+ansiCyan, "Note:")
		p.colored(ansiBold, " Objects have changed outside of Tether")
		p.nl()
		p.nl()
		p.str("Tether detected the following changes made outside of Tether since the")
		p.nl()
		p.str(`last "tether apply" which may have affected this plan:`)
		p.nl()
		for _, d := range pl.Drift {
			if drifted(d) {
				p.nl()
				p.drift(d)
			}
		}
		p.nl()
		if pl.RefreshOnly {
			p.str("This is a refresh-only plan, so Tether will not take any actions to undo")
			p.nl()
			p.str("these. If you were expecting these changes then you can apply this plan to")
			p.nl()
			p.str("record the updated values in Tether's state without changing any remote")
			p.nl()
			p.str("objects.")
			p.nl()
			return
		}
		p.str("Unless you have made equivalent changes to your configuration, or ignored the")
		p.nl()
		p.str("relevant attributes using ignore_changes, the following plan may include")
		p.nl()
		p.str("actions to undo or respond to these changes.")
		p.nl()
		p.nl()
		p.str(strings.Repeat("─", 77))
		p.nl()
	}

	if pl.RefreshOnly {
		section()
		p.colored(ansiBold+ansiGreen, "No changes.")
		p.colored(ansiBold, " Your infrastructure still matches the configuration.")
		p.nl()
		p.nl()
		p.str("Tether has checked that the real remote objects still match the result of")
		p.nl()
		p.str("your most recent changes, and found no differences.")
		p.nl()
		return
	}

	// The legend lists only the symbols this plan uses, as Terraform's does.
	var used [plan.Delete + 1]bool
	shown := 0
	movedFrom := movedFrom(pl)
	for _, c := range pl.Changes {
		if c != nil && c.Action > plan.NoOp && c.Action <= plan.Delete {
			used[c.Action] = true
			shown++
		} else if c != nil && (c.Importing != "" || c.Action == plan.Forget || movedFrom[c.Addr] != "") {
			shown++
		}
	}
	p.movedFrom = movedFrom
	if shown > 0 {
		section()
		// Without a symbol to explain (only moves, imports, forgets),
		// Terraform prints no legend.
		anyUsed := false
		for _, u := range used {
			anyUsed = anyUsed || u
		}
		if anyUsed {
			p.str("Tether used the selected providers to generate the following execution")
			p.nl()
			p.str("plan. Resource actions are indicated with the following symbols:")
			p.nl()
			for _, l := range legend {
				if used[l.action] {
					p.actionSymbol(l.action)
					p.byte(' ')
					p.str(l.text)
					p.nl()
				}
			}
			p.nl()
		}
		p.str("Tether will perform the following actions:")
		p.nl()
		for _, c := range pl.Changes {
			if c != nil && ((c.Action > plan.NoOp && c.Action <= plan.Delete) || c.Importing != "" || c.Action == plan.Forget || movedFrom[c.Addr] != "") {
				p.nl()
				p.change(c)
			}
		}
	}

	// Moves of objects that have no change listed (deferred ones) are
	// said on their own.
	var unlisted []*plan.Move
	for _, m := range pl.Moved {
		listed := false
		for _, from := range movedFrom {
			if from == m.From || strings.HasPrefix(from, m.From+".") {
				listed = true
			}
		}
		if !listed {
			unlisted = append(unlisted, m)
		}
	}
	if len(unlisted) > 0 {
		section()
		p.str("Tether will record these objects at new addresses, without changing them:")
		p.nl()
		for _, m := range unlisted {
			p.nl()
			p.str("  # ")
			p.safe(m.From)
			p.str(" has moved to ")
			p.safe(m.To)
			p.nl()
		}
	}

	if len(pl.Deferred) > 0 {
		section()
		p.colored(ansiBold, "Deferred until their inputs are known:")
		p.nl()
		p.str("(tether up applies the changes above, then plans and applies these)")
		p.nl()
		for _, d := range pl.Deferred {
			p.nl()
			p.str("  # ")
			p.safe(d.Addr)
			if d.ByProvider {
				p.str(" is deferred by its provider: ")
				p.safe(d.WaitingOn)
				p.nl()
				continue
			}
			switch {
			case d.Module || d.Existing:
				p.str(" will be planned once ")
			default:
				p.str(" will be created once ")
			}
			p.safe(d.WaitingOn)
			p.str(" is known")
			if d.Existing {
				p.str("; its existing instances are left as they are until then")
			}
			p.nl()
		}
	}

	outputs := 0
	for _, o := range pl.Outputs {
		if o != nil && o.Action != plan.NoOp {
			outputs++
		}
	}
	if shown == 0 && !pl.HasChanges() {
		section()
		p.colored(ansiBold+ansiGreen, "No changes.")
		if pl.Destroy {
			p.colored(ansiBold, " No objects need to be destroyed.")
		} else {
			p.colored(ansiBold, " Your infrastructure matches the configuration.")
		}
		p.nl()
		return
	}
	// As in Terraform: the summary comes after the resources and before
	// the outputs, and a plan that changes only outputs has none.
	outputsOnly := shown == 0 && outputs > 0 && len(pl.Deferred) == 0 && len(pl.Moved) == 0
	if !outputsOnly {
		section()
		p.summary(pl)
	}
	if outputs > 0 {
		section()
		p.colored(ansiBold, "Changes to Outputs:")
		p.nl()
		p.outputs(pl.Outputs)
	}
	if outputsOnly {
		section()
		p.str("You can apply this plan to save these new output values to the Tether")
		p.nl()
		p.str("state, without changing any real infrastructure.")
		p.nl()
	}
	p.forgetWarning(pl)
}

// forgetWarning lists, as Terraform does, the objects the plan stops
// managing without destroying them.
func (p *printer) forgetWarning(pl *plan.Plan) {
	var addrs []string
	for _, c := range pl.Changes {
		if c != nil && c.Action == plan.Forget {
			addrs = append(addrs, c.Addr)
		}
	}
	if len(addrs) == 0 {
		return
	}
	p.nl()
	p.colored(ansiBold+ansiYellow, "Warning:")
	p.colored(ansiBold, " Some objects will no longer be managed by Tether")
	p.nl()
	p.nl()
	p.str("If you apply this plan, Tether will discard its tracking information for")
	p.nl()
	p.str("the following objects, but it will not delete them:")
	p.nl()
	for _, a := range addrs {
		p.str(" - ")
		p.safe(a)
		p.nl()
	}
	p.nl()
	p.str("After applying this plan, Tether will no longer manage these objects. You")
	p.nl()
	p.str("will need to import them into Tether to manage them again.")
	p.nl()
}

// summary writes the plan's counts: Plan: N to import, N to add, ...
func (p *printer) summary(pl *plan.Plan) {
	a, c, d := pl.Summary()
	p.colored(ansiBold, "Plan:")
	p.byte(' ')
	if n := pl.Imports(); n > 0 {
		p.str(strconv.Itoa(n))
		p.str(" to import, ")
	}
	p.str(strconv.Itoa(a))
	p.str(" to add, ")
	p.str(strconv.Itoa(c))
	p.str(" to change, ")
	p.str(strconv.Itoa(d))
	p.str(" to destroy.")
	p.nl()
}

var legend = []struct {
	action plan.Action
	text   string
}{
	{plan.Create, "create"},
	{plan.Update, "update in-place"},
	{plan.Delete, "destroy"},
	{plan.DeleteThenCreate, "destroy and then create replacement"},
	{plan.CreateThenDelete, "create replacement and then destroy"},
	{plan.Read, "read (data resources)"},
}

// actionSymbol writes the three-column symbol that starts a resource's
// body line, right-aligned so the body braces line up for every action.
func (p *printer) actionSymbol(a plan.Action) {
	switch a {
	case plan.Create:
		p.str("  ")
		p.colored(ansiGreen, "+")
	case plan.Update:
		p.str("  ")
		p.colored(ansiYellow, "~")
	case plan.Delete:
		p.str("  ")
		p.colored(ansiRed, "-")
	case plan.DeleteThenCreate:
		p.colored(ansiRed, "-")
		p.byte('/')
		p.colored(ansiGreen, "+")
	case plan.CreateThenDelete:
		p.colored(ansiGreen, "+")
		p.byte('/')
		p.colored(ansiRed, "-")
	case plan.Read:
		p.byte(' ')
		p.colored(ansiCyan, "<=")
	default:
		p.str("   ")
	}
}

func (p *printer) comment(addr, what string) {
	if p.color {
		p.str(ansiBold)
	}
	p.str("  # ")
	p.safe(addr)
	if p.color {
		p.str(ansiReset)
	}
	p.str(what)
	p.nl()
}

func (p *printer) change(c *plan.ResourceChange) {
	var what string
	switch {
	case c.Action == plan.Create:
		what = " will be created"
	case c.Action == plan.Update:
		what = " will be updated in-place"
	case c.Action.IsReplace() && c.Tainted:
		what = " is tainted, so must be replaced"
	case c.Action.IsReplace() && c.Requested:
		what = " will be replaced, as requested"
	case c.Action.IsReplace():
		what = " must be replaced"
	case c.Action == plan.Delete:
		what = " will be destroyed"
	case c.Action == plan.Read:
		what = " will be read during apply"
	case c.Importing != "":
		what = " will be imported"
	}
	if c.Action == plan.Forget {
		// Terraform indents these by one space, not two.
		p.str(" # ")
		p.safe(c.Addr)
		p.str(" will no longer be managed by Tether, but will not be destroyed")
		p.nl()
		p.str(" # (")
		p.safe(c.Reason)
		p.str(")")
		p.nl()
		p.str(" . ")
		data, typ, name, ok := splitAddr(c.Addr)
		if !ok {
			data, typ, name = false, c.Type, c.Addr
		}
		p.head(data, typ, name)
		p.byte(' ')
		p.body(c.Before, c.After, bodyChange(c.Before, c.After), c.Schema)
		p.nl()
		return
	}
	if from := p.movedFrom[c.Addr]; from != "" {
		if c.Action == plan.NoOp && c.Importing == "" {
			what = " has moved to " + c.Addr
			p.comment(from, what)
		} else {
			p.comment(c.Addr, what)
			p.str("  # (moved from ")
			p.safe(from)
			p.str(")")
			p.nl()
		}
	} else {
		p.comment(c.Addr, what)
	}
	if c.Importing != "" && c.Action != plan.NoOp {
		p.str("  # (imported from ")
		p.safe(strconv.Quote(c.Importing))
		p.str(")")
		p.nl()
	}
	if c.Reason == plan.ReasonCheck {
		p.str("  # (")
		p.safe(c.Reason)
		p.str(")")
		p.nl()
	} else if c.Reason != "" && !c.Requested {
		p.str("  # (because ")
		p.safe(c.Reason)
		p.str(")")
		p.nl()
	}
	p.actionSymbol(c.Action)
	p.byte(' ')
	data, typ, name, ok := splitAddr(c.Addr)
	if !ok {
		data, typ, name = c.Mode == plan.Data, c.Type, c.Addr
	}
	p.head(data, typ, name)
	p.byte(' ')
	p.replace = c.RequiresReplace
	p.showAll = c.Importing != ""
	p.body(c.Before, c.After, bodyChange(c.Before, c.After), c.Schema)
	p.replace, p.showAll = nil, false
	p.nl()
}

// drifted reports whether a refreshed object differs from its record;
// refresh reports every object it read, most of them unchanged.
func drifted(d *plan.ResourceChange) bool {
	if d == nil {
		return false
	}
	c, ok := classify(d.Before, d.After)
	return ok && c != same
}

func (p *printer) drift(d *plan.ResourceChange) {
	c := bodyChange(d.Before, d.After)
	if c == remove {
		p.comment(d.Addr, " has been deleted")
		p.actionSymbol(plan.Delete)
	} else {
		p.comment(d.Addr, " has changed")
		p.actionSymbol(plan.Update)
	}
	p.byte(' ')
	data, typ, name, ok := splitAddr(d.Addr)
	if !ok {
		data, typ, name = d.Mode == plan.Data, d.Type, d.Addr
	}
	p.head(data, typ, name)
	p.byte(' ')
	p.body(d.Before, d.After, c, d.Schema)
	p.nl()
}

func bodyChange(b, a cty.Value) change {
	switch {
	case b.IsNull():
		return add
	case a.IsNull():
		return remove
	}
	return modify
}

// head writes `resource "TYPE" "NAME"` or `data "TYPE" "NAME"`.
func (p *printer) head(data bool, typ, name string) {
	if data {
		p.str("data ")
	} else {
		p.str("resource ")
	}
	p.quoted(typ)
	if name != "" {
		p.byte(' ')
		p.quoted(name)
	}
}

// body writes a resource's attributes in braces at depth 0, and with the
// resource type's schema its nested blocks as blocks.
func (p *printer) body(b, a cty.Value, c change, schema *provider.Block) {
	// A whole object marked sensitive still has attributes worth listing;
	// hiding each of them is as safe and tells the reader more.
	bs, as := sensitive(b), sensitive(a)
	b, _ = b.Unmark()
	a, _ = a.Unmark()
	if bs || as {
		b, a = markAttrs(b), markAttrs(a)
	}
	if schema != nil {
		b, a = p.legacyBlock(schema, b, false), p.legacyBlock(schema, a, false)
		p.legacy = true
		p.block(0, schema, b, a, c, nil, false)
		p.legacy = false
		return
	}
	p.braces(0, p.objectEntries(nil, b, a, c), c, nil, "attribute", true, "", false)
}

// markAttrs marks each attribute of a known object sensitive.
func markAttrs(v cty.Value) cty.Value {
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return v
	}
	vals := v.AsValueMap()
	for k, av := range vals {
		vals[k] = av.Mark(marks.Sensitive)
	}
	if vals == nil {
		return v
	}
	return cty.ObjectVal(vals)
}

func (p *printer) outputs(os []*plan.OutputChange) {
	width := 0
	for _, o := range os {
		if o != nil && o.Action != plan.NoOp {
			width = max(width, len([]rune(attrKey(o.Name))))
		}
	}
	for _, o := range os {
		if o == nil || o.Action == plan.NoOp {
			continue
		}
		b, a := o.Before, o.After
		if o.Sensitive {
			b, a = b.Mark(marks.Sensitive), a.Mark(marks.Sensitive)
		}
		var c change
		switch o.Action {
		case plan.Create:
			c = add
		case plan.Delete:
			c = remove
		default:
			var ok bool
			if c, ok = classify(b, a); !ok || c == same {
				c = modify
			}
		}
		p.indent(0, c)
		p.padded(attrKey(o.Name), width)
		p.str(" = ")
		suffix := ""
		if c == remove {
			suffix = " -> null"
		}
		p.value(0, b, a, c, nil, suffix)
		p.nl()
	}
}

// safe writes text that comes from configuration or providers, such as an
// address with a string key, with terminal control characters escaped.
func (p *printer) safe(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' {
			p.byte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		p.escapedRune(r, size)
	}
}

// splitAddr takes a resource instance address apart:
// `module.a["x"].data.tether_file.b[0]` gives data, "tether_file", "b".
// Instance keys may hold any string, so dots and brackets inside quotes
// are not separators.
func splitAddr(addr string) (data bool, typ, name string, ok bool) {
	segs := make([]string, 0, 4)
	start, depth, quoted := 0, 0, false
	for i := 0; i < len(addr); i++ {
		switch c := addr[i]; {
		case quoted && c == '\\':
			i++
		case c == '"' && depth > 0:
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == '.' && depth == 0:
			segs = append(segs, addr[start:i])
			start = i + 1
		}
	}
	segs = append(segs, addr[start:])
	for len(segs) > 2 && segs[0] == "module" {
		segs = segs[2:]
	}
	if len(segs) == 3 && segs[0] == "data" {
		data = true
		segs = segs[1:]
	}
	if len(segs) != 2 || segs[0] == "" || segs[0] == "module" || segs[1] == "" {
		return false, "", "", false
	}
	typ, name = segs[0], segs[1]
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return data, typ, name, name != ""
}

// movedFrom maps the address of each listed change that a moved block
// renamed to its old address; a module's move renames everything in it.
func movedFrom(pl *plan.Plan) map[string]string {
	out := map[string]string{}
	for _, c := range pl.Changes {
		if c == nil || c.Mode != plan.Managed {
			continue
		}
		for _, m := range pl.Moved {
			switch {
			case c.Addr == m.To:
				out[c.Addr] = m.From
			case strings.HasPrefix(c.Addr, m.To+"."):
				out[c.Addr] = m.From + c.Addr[len(m.To):]
			}
		}
	}
	return out
}
