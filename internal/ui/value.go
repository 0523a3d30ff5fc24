package ui

import (
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// change is what happens to one value within a rendering; plan.Action is
// about whole resources and has no notion of "this element stays".
type change uint8

const (
	same change = iota
	add
	remove
	modify
)

const (
	sensitiveText = "(sensitive value)"
	writeOnlyText = "(write-only attribute)"
	unknownText   = "(known after apply)"
)

// maxLCSCells caps the table of the longest-common-subsequence diff so
// that a pathological list or file cannot make rendering quadratic. Past
// it the middle part is shown as removed and then added.
const maxLCSCells = 1 << 20

// FormatValue renders v in the HCL-like syntax of plan bodies, without
// the action column. indent is the nesting depth of the line the value
// starts on; nested lines are indented four spaces a level deeper and the
// closing bracket lines up with that depth. Null attributes of objects are
// left out, as in plans and in `tether state show`.
func FormatValue(v cty.Value, indent int) string {
	p := &printer{}
	p.whole(indent, v, same, nil, "", false)
	return string(p.buf)
}

func sensitive(v cty.Value) bool { return v.HasMark(marks.Sensitive) }

func writeOnly(v cty.Value) bool { return v.HasMark(marks.WriteOnly) }

// classify compares two values; ok is false when both are null, which
// Terraform never shows.
func classify(b, a cty.Value) (c change, ok bool) {
	bn, an := b.IsNull(), a.IsNull()
	switch {
	case bn && an:
		// An empty string shown as null is there all the same.
		return same, isLegacyEmpty(b) || isLegacyEmpty(a)
	case bn:
		return add, true
	case an:
		return remove, true
	case b.RawEquals(a):
		return same, true
	}
	return modify, true
}

// entry is one attribute, map element or sequence element of a rendering.
type entry struct {
	key    string // as displayed; empty for sequence elements
	b, a   cty.Value
	c      change
	attr   string    // path step when isAttr
	index  cty.Value // path step otherwise
	isAttr bool
	// nested is the structure of an attribute of a nested attribute
	// type, which is shown its own way (nestedValue).
	nested *provider.NestedAttributes
}

func (e *entry) step() cty.PathStep {
	if e.isAttr {
		return cty.GetAttrStep{Name: e.attr}
	}
	return cty.IndexStep{Key: e.index}
}

// child extends path only when some path must be compared: building paths
// for every value of 100,000 resources would be wasted otherwise.
func (p *printer) child(path cty.Path, e *entry) cty.Path {
	if len(p.replace) == 0 {
		return nil
	}
	return append(path[:len(path):len(path)], e.step())
}

func (p *printer) forces(path cty.Path) bool {
	if len(path) == 0 {
		return false
	}
	for _, r := range p.replace {
		if r.Equals(path) {
			return true
		}
	}
	return false
}

func (p *printer) forcesNote(f bool) {
	if f {
		p.byte(' ')
		p.colored(ansiRed, "# forces replacement")
	}
}

func (p *printer) hiddenNote(depth, n int, noun string) {
	p.indent(depth, same)
	p.str("# (")
	p.str(strconv.Itoa(n))
	p.str(" unchanged ")
	p.str(noun)
	if n != 1 {
		p.byte('s')
	}
	p.str(" hidden)")
	p.nl()
}

// value writes what follows "key = " (or an element's symbol) on a line at
// depth, through to the end of the value's last line.
func (p *printer) value(depth int, b, a cty.Value, c change, path cty.Path, suffix string) {
	f := p.forces(path)
	switch c {
	case remove:
		p.whole(depth, b, remove, path, suffix, f)
	case modify:
		p.modify(depth, b, a, path, suffix, f)
	default:
		p.whole(depth, a, c, path, suffix, f)
	}
}

// whole renders one value on its own, every part of it with the same
// change: the body of something created, destroyed or unchanged.
func (p *printer) whole(depth int, v cty.Value, c change, path cty.Path, suffix string, f bool) {
	if writeOnly(v) {
		p.str(writeOnlyText)
		p.str(suffix)
		return
	}
	if sensitive(v) {
		p.str(sensitiveText)
		p.str(suffix)
		p.forcesNote(f)
		return
	}
	v, _ = v.Unmark()
	switch {
	case !v.IsKnown():
		p.str(unknownText)
		p.str(suffix)
		p.forcesNote(f)
		return
	case v.IsNull():
		p.str("null")
		p.str(suffix)
		p.forcesNote(f)
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		if s := v.AsString(); strings.Contains(s, "\n") {
			p.heredoc(depth, s, suffix, f)
			return
		}
		p.primitive(v)
	case ty.IsPrimitiveType():
		p.primitive(v)
	case ty.IsObjectType():
		p.braces(depth, p.objectEntries(nil, v, v, c), c, path, "attribute", false, suffix, f)
		return
	case ty.IsMapType():
		p.braces(depth, mapEntries(v, v, c), c, path, "element", false, suffix, f)
		return
	default: // list, set, tuple
		vs := v.AsValueSlice()
		es := make([]entry, len(vs))
		for i, ev := range vs {
			es[i] = entry{b: ev, a: ev, c: c, index: seqKey(ty, i, ev)}
		}
		if ty.IsSetType() {
			p.legacySet(es)
		}
		p.brackets(depth, es, c, path, false, suffix, f)
		return
	}
	p.str(suffix)
	p.forcesNote(f)
}

// modify renders a value that exists on both sides and differs. suffix
// goes after the value, before any "# forces replacement" comment.
func (p *printer) modify(depth int, b, a cty.Value, path cty.Path, suffix string, f bool) {
	if sensitive(b) || sensitive(a) {
		p.str(sensitiveText)
		p.str(suffix)
		p.forcesNote(f)
		return
	}
	b, _ = b.Unmark()
	a, _ = a.Unmark()
	switch {
	case b.IsNull():
		p.whole(depth, a, add, path, suffix, f)
		return
	case a.IsNull():
		p.whole(depth, b, remove, path, " -> null"+suffix, f)
		return
	case !a.IsKnown():
		p.whole(depth, b, remove, path, " -> "+unknownText+suffix, f)
		return
	case !b.IsKnown():
		p.str(unknownText + " -> ")
		p.whole(depth, a, add, path, suffix, f)
		return
	}
	bt, at := b.Type(), a.Type()
	switch {
	case bt.IsPrimitiveType() && at.IsPrimitiveType():
		if bt == cty.String && at == cty.String {
			bs, as := b.AsString(), a.AsString()
			if strings.Contains(bs, "\n") || strings.Contains(as, "\n") {
				p.heredocDiff(depth, bs, as, suffix, f)
				return
			}
		}
		p.primitive(b)
		p.str(" -> ")
		p.primitive(a)
		p.str(suffix)
		p.forcesNote(f)
	case bt.IsObjectType() && at.IsObjectType():
		p.braces(depth, p.objectEntries(nil, b, a, modify), modify, path, "attribute", false, suffix, f)
	case bt.IsMapType() && at.IsMapType():
		p.braces(depth, mapEntries(b, a, modify), modify, path, "element", false, suffix, f)
	case bt.IsSetType() && at.IsSetType():
		es := setEntries(b, a)
		p.legacySet(es)
		p.brackets(depth, es, modify, path, false, suffix, f)
	case isSeq(bt) && isSeq(at):
		es, context := listEntries(b, a)
		p.brackets(depth, es, modify, path, context, suffix, f)
	default:
		// A dynamic value changed kind; show it going and the new one coming.
		p.whole(depth, b, remove, path, " ->", false)
		p.byte(' ')
		p.whole(depth, a, add, path, suffix, f)
	}
}

func isSeq(t cty.Type) bool { return t.IsListType() || t.IsTupleType() }

// braces renders an object or a map from its entries.
func (p *printer) braces(depth int, es []entry, c change, path cty.Path, noun string, top bool, suffix string, f bool) {
	if len(es) == 0 {
		p.str("{}")
		p.str(suffix)
		p.forcesNote(f)
		return
	}
	p.byte('{')
	p.forcesNote(f)
	p.nl()
	p.keyed(depth+1, es, c, path, noun, top)
	p.indent(depth, same)
	p.byte('}')
	p.str(suffix)
}

// keyed writes the "key = value" lines of an object or map, aligned on
// "=" as Terraform does. The width counts hidden keys too, so that the
// alignment does not shift when a different attribute changes.
func (p *printer) keyed(depth int, es []entry, parent change, path cty.Path, noun string, top bool) {
	width := 0
	for i := range es {
		if n := utf8.RuneCountInString(es[i].key); n > width {
			width = n
		}
	}
	hidden := 0
	for i := range es {
		e := &es[i]
		// Under a created or destroyed parent only the empty strings
		// shown as null are unchanged.
		if e.c == same && parent != same && !(top && importantAttr(e.key)) && !p.showAll {
			hidden++
			continue
		}
		if e.c == modify && sensitive(e.b) != sensitive(e.a) {
			p.sensitivityWarning(depth, sensitive(e.a), sameUnmarked(e.b, e.a))
		}
		p.indent(depth, e.c)
		p.padded(e.key, width)
		p.str(" = ")
		// Only the outermost removed value says where it goes; its
		// contents go with it. Resource attributes always say it.
		suffix := ""
		if e.c == remove && (parent != remove || top) {
			suffix = " -> null"
		}
		if e.nested != nil {
			p.nestedValue(depth, e.nested, e.b, e.a, e.c, p.child(path, e), suffix)
		} else {
			p.value(depth, e.b, e.a, e.c, p.child(path, e), suffix)
		}
		p.nl()
	}
	if hidden > 0 {
		p.hiddenNote(depth, hidden, noun)
	}
}

// importantAttr names the attributes Terraform shows even when unchanged,
// because they tell the reader which object an update is about.
func importantAttr(k string) bool { return k == "id" || k == "name" || k == "tags" }

// sensitivityWarning is Terraform's warning above an attribute whose
// sensitivity changes; unchanged says that only its sensitivity does.
func (p *printer) sensitivityWarning(depth int, nowSensitive, unchanged bool) {
	p.spaces(4*depth + 2)
	if nowSensitive {
		p.str("# Warning: this attribute value will be marked as sensitive and will not")
		p.nl()
		p.spaces(4*depth + 2)
		p.str("# display in UI output after applying this change.")
	} else {
		p.str("# Warning: this attribute value will no longer be marked as sensitive")
		p.nl()
		p.spaces(4*depth + 2)
		p.str("# after applying this change.")
	}
	if unchanged {
		p.str(" The value is unchanged.")
	}
	p.nl()
}

// sameUnmarked reports whether a and b are the same value once their
// marks are set aside.
func sameUnmarked(a, b cty.Value) bool {
	ua, _ := a.UnmarkDeep()
	ub, _ := b.UnmarkDeep()
	return ua.RawEquals(ub)
}

// brackets renders a list, tuple or set from its entries. With context,
// unchanged elements next to a change stay visible so a reader can tell
// where in the list the change is.
func (p *printer) brackets(depth int, es []entry, c change, path cty.Path, context bool, suffix string, f bool) {
	if len(es) == 0 {
		p.str("[]")
		p.str(suffix)
		p.forcesNote(f)
		return
	}
	p.byte('[')
	p.forcesNote(f)
	p.nl()
	hidden := 0
	for i := range es {
		e := &es[i]
		if e.c == same && c == modify {
			near := context && (i > 0 && es[i-1].c != same || i+1 < len(es) && es[i+1].c != same)
			if !near {
				hidden++
				continue
			}
		}
		if hidden > 0 {
			p.hiddenNote(depth+1, hidden, "element")
			hidden = 0
		}
		if e.c == modify && sensitive(e.b) != sensitive(e.a) {
			p.sensitivityWarning(depth+1, sensitive(e.a), sameUnmarked(e.b, e.a))
		}
		p.indent(depth+1, e.c)
		p.value(depth+1, e.b, e.a, e.c, p.child(path, e), ",")
		p.nl()
	}
	if hidden > 0 {
		p.hiddenNote(depth+1, hidden, "element")
	}
	p.indent(depth, same)
	p.byte(']')
	p.str(suffix)
}

// attrKey is how an object attribute name is written: bare when HCL would
// accept it bare.
func attrKey(name string) string {
	if validIdentifier(name) {
		return name
	}
	return quote(name)
}

// validIdentifier approximates hclsyntax.ValidIdentifier (Unicode ID_Start
// and ID_Continue, plus '-') without running the HCL scanner for every
// attribute of every resource, which dominated rendering time.
func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (r == '-' || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)):
		default:
			return false
		}
	}
	return true
}

// attrs lists an object's attributes in name order, in dst's room. An
// unknown object has unknown attributes; anything that is not a known
// object has none.
func attrs(dst []attrVal, v cty.Value) []attrVal {
	ty := v.Type()
	if !ty.IsObjectType() || v.IsNull() {
		return dst[:0]
	}
	// By name, as go-cty's element iterator gives them, without the
	// string value it makes of each name.
	atys := ty.AttributeTypes()
	out := slices.Grow(dst[:0], len(atys))
	for n, t := range atys {
		if v.IsKnown() {
			out = append(out, attrVal{n, ctysame.Attr(v, n)})
		} else {
			out = append(out, attrVal{n, cty.UnknownVal(t)})
		}
	}
	slices.SortFunc(out, func(a, b attrVal) int { return strings.Compare(a.name, b.name) })
	return out
}

type attrVal struct {
	name string
	v    cty.Value
}

// objectEntries lists the attributes of b and a (both objects, null or
// unknown, already unmarked) in dst's room. Unless c is modify only one
// side matters and every entry gets c. Null attributes are left out, as
// Terraform does.
func (p *printer) objectEntries(dst []entry, b, a cty.Value, c change) []entry {
	defer func() {
		// The attribute lists are the printer's, used again by the next
		// call: the values in them are let go of now.
		clear(p.attrsB)
		clear(p.attrsA)
	}()
	if c != modify {
		v := a
		if c == remove {
			v = b
		}
		as := attrs(p.attrsA, v)
		p.attrsA = as
		es := slices.Grow(dst[:0], len(as))
		for _, at := range as {
			switch {
			case isLegacyEmpty(at.v):
				// Null on both sides, so unchanged even here.
				es = append(es, entry{key: attrKey(at.name), attr: at.name, isAttr: true, c: same, b: at.v, a: at.v})
			case !at.v.IsNull() || writeOnly(at.v):
				es = append(es, entry{key: attrKey(at.name), attr: at.name, isAttr: true, c: c, b: at.v, a: at.v})
			}
		}
		return es
	}
	// Both lists are sorted by name; walk them together.
	bs, as := attrs(p.attrsB, b), attrs(p.attrsA, a)
	p.attrsB, p.attrsA = bs, as
	es := slices.Grow(dst[:0], max(len(bs), len(as)))
	null := cty.NullVal(cty.DynamicPseudoType)
	for i, j := 0, 0; i < len(bs) || j < len(as); {
		e := entry{isAttr: true, b: null, a: null}
		switch {
		case j == len(as) || i < len(bs) && bs[i].name < as[j].name:
			e.attr, e.b = bs[i].name, bs[i].v
			i++
		case i == len(bs) || as[j].name < bs[i].name:
			e.attr, e.a = as[j].name, as[j].v
			j++
		default:
			e.attr, e.b, e.a = bs[i].name, bs[i].v, as[j].v
			i++
			j++
		}
		var ok bool
		if e.c, ok = classify(e.b, e.a); ok || writeOnly(e.a) {
			// A write-only attribute has no value to compare: Terraform
			// counts it among the unchanged ones.
			if !ok {
				e.c = same
			}
			e.key = attrKey(e.attr)
			es = append(es, e)
		}
	}
	return es
}

// mapEntries is objectEntries for maps; null elements are shown, since in
// a map they are there.
func mapEntries(b, a cty.Value, c change) []entry {
	if c != modify {
		v := a
		if c == remove {
			v = b
		}
		es := make([]entry, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			es = append(es, entry{key: quote(k.AsString()), b: ev, a: ev, c: c, index: k})
		}
		return es
	}
	bm := b.AsValueMap()
	am := a.AsValueMap()
	keys := keysOfBoth(bm, am)
	es := make([]entry, 0, len(keys))
	for _, k := range keys {
		bv, bok := bm[k]
		av, aok := am[k]
		e := entry{key: quote(k), b: bv, a: av, index: cty.StringVal(k)}
		switch {
		case !bok:
			e.c = add
		case !aok:
			e.c = remove
		default:
			e.c, _ = classify(bv, av)
		}
		es = append(es, e)
	}
	return es
}

func seqKey(ty cty.Type, i int, v cty.Value) cty.Value {
	if ty.IsSetType() {
		return v
	}
	return cty.NumberIntVal(int64(i))
}

// listEntries diffs two lists or tuples. Lists of primitives are diffed
// as sequences (an insertion is one "+", not a change of every later
// element); lists of structures are compared position by position so
// that an edited element shows as "~" with its own diff inside.
func listEntries(b, a cty.Value) (es []entry, context bool) {
	bs, as := b.AsValueSlice(), a.AsValueSlice()
	if !allPrimitive(bs) || !allPrimitive(as) {
		n := max(len(bs), len(as))
		es = make([]entry, 0, n)
		for i := range n {
			e := entry{b: cty.NullVal(cty.DynamicPseudoType), a: cty.NullVal(cty.DynamicPseudoType), index: cty.NumberIntVal(int64(i))}
			switch {
			case i >= len(bs):
				e.a, e.c = as[i], add
			case i >= len(as):
				e.b, e.c = bs[i], remove
			default:
				e.b, e.a = bs[i], as[i]
				e.c, _ = classify(e.b, e.a)
			}
			es = append(es, e)
		}
		return es, false
	}
	// Elements are matched by value alone: one that only becomes (or
	// stops being) sensitive is kept in place and shown as changed, as
	// Terraform shows it, not removed in clear and added again.
	ubs, uas := unmarkAll(bs), unmarkAll(as)
	pairs := matchSeq(len(bs), len(as), func(i, j int) bool { return ubs[i].RawEquals(uas[j]) })
	es = make([]entry, 0, len(bs)+len(as)-len(pairs))
	i, j := 0, 0
	for k := 0; k <= len(pairs); k++ {
		ni, nj := len(bs), len(as)
		if k < len(pairs) {
			ni, nj = pairs[k][0], pairs[k][1]
		}
		for ; i < ni; i++ {
			es = append(es, entry{b: bs[i], c: remove, index: cty.NumberIntVal(int64(i))})
		}
		for ; j < nj; j++ {
			es = append(es, entry{a: as[j], c: add, index: cty.NumberIntVal(int64(j))})
		}
		if k < len(pairs) {
			c := same
			if !bs[i].RawEquals(as[j]) {
				c = modify
			}
			es = append(es, entry{b: bs[i], a: as[j], c: c, index: cty.NumberIntVal(int64(j))})
			i++
			j++
		}
	}
	return es, true
}

// unmarkAll is vs with each value's own marks set aside (primitive values
// carry no others).
func unmarkAll(vs []cty.Value) []cty.Value {
	out := make([]cty.Value, len(vs))
	for i, v := range vs {
		out[i], _ = v.Unmark()
	}
	return out
}

func allPrimitive(vs []cty.Value) bool {
	for _, v := range vs {
		if !v.Type().IsPrimitiveType() {
			return false
		}
	}
	return true
}

// setEntries diffs two sets by membership: a set element has no position
// and no identity but its value, so it is either kept, removed or added.
func setEntries(b, a cty.Value) []entry {
	bs, as := b.AsValueSlice(), a.AsValueSlice()
	es := make([]entry, 0, len(bs)+len(as))
	var kept []cty.Value
	for _, v := range bs {
		if inSet(a, v) {
			kept = append(kept, v)
		} else {
			es = append(es, entry{b: v, a: v, c: remove, index: v})
		}
	}
	for _, v := range as {
		if !inSet(b, v) {
			es = append(es, entry{b: v, a: v, c: add, index: v})
		}
	}
	// Kept elements go last so that their "hidden" note does not sit
	// between removals and additions as if it had a position.
	for _, v := range kept {
		es = append(es, entry{b: v, a: v, c: same, index: v})
	}
	return es
}

func inSet(set, v cty.Value) bool {
	if !v.IsWhollyKnown() {
		return false
	}
	return set.HasElement(v).RawEquals(cty.True)
}

// matchSeq returns the index pairs of a longest common subsequence of two
// sequences, in order. Common prefixes and suffixes, which is most of any
// real edit, are matched in linear time before the quadratic part runs.
func matchSeq(n, m int, eq func(i, j int) bool) [][2]int {
	pre := 0
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	pairs := make([][2]int, 0, pre+suf)
	for i := range pre {
		pairs = append(pairs, [2]int{i, i})
	}
	bn, am := n-pre-suf, m-pre-suf
	if bn > 0 && am > 0 && bn*am <= maxLCSCells {
		w := am + 1
		l := make([]int32, (bn+1)*w)
		for i := bn - 1; i >= 0; i-- {
			for j := am - 1; j >= 0; j-- {
				if eq(pre+i, pre+j) {
					l[i*w+j] = l[(i+1)*w+j+1] + 1
				} else {
					l[i*w+j] = max(l[(i+1)*w+j], l[i*w+j+1])
				}
			}
		}
		for i, j := 0, 0; i < bn && j < am; {
			switch {
			case l[i*w+j] == l[(i+1)*w+j+1]+1 && eq(pre+i, pre+j):
				pairs = append(pairs, [2]int{pre + i, pre + j})
				i++
				j++
			case l[(i+1)*w+j] >= l[i*w+j+1]:
				i++
			default:
				j++
			}
		}
	}
	for k := range suf {
		pairs = append(pairs, [2]int{n - suf + k, m - suf + k})
	}
	return pairs
}

func (p *printer) primitive(v cty.Value) {
	switch v.Type() {
	case cty.String:
		p.quoted(v.AsString())
	case cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			if i, acc := bf.Int64(); acc == big.Exact {
				p.str(strconv.FormatInt(i, 10))
				return
			}
		}
		p.str(bf.Text('f', -1))
	case cty.Bool:
		if v.True() {
			p.str("true")
		} else {
			p.str("false")
		}
	}
}

func quote(s string) string {
	p := printer{buf: make([]byte, 0, len(s)+2)}
	p.quoted(s)
	return string(p.buf)
}

// quoted writes s as a quoted string. Control and other invisible
// characters are escaped: a value is data from a provider or a file, and
// must not be able to move the cursor or recolour the user's terminal.
func (p *printer) quoted(s string) {
	p.byte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			p.byte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			p.str(`\"`)
		case r == '\\':
			p.str(`\\`)
		case r == '\n':
			p.str(`\n`)
		case r == '\r':
			p.str(`\r`)
		case r == '\t':
			p.str(`\t`)
		default:
			p.escapedRune(r, size)
		}
	}
	p.byte('"')
}

func (p *printer) escapedRune(r rune, size int) {
	switch {
	case r == utf8.RuneError && size == 1:
		p.str(`\ufffd`)
	case unicode.IsPrint(r) || r == ' ':
		p.buf = utf8.AppendRune(p.buf, r)
	case r <= 0xffff:
		p.str(`\u`)
		p.hex(uint32(r), 4)
	default:
		p.str(`\U`)
		p.hex(uint32(r), 8)
	}
}

func (p *printer) hex(v uint32, digits int) {
	const hexDigits = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		p.byte(hexDigits[(v>>(4*i))&0xf])
	}
}

// heredocLine writes one line of a multi-line string as it is, except for
// characters that would act on the terminal instead of being shown.
func (p *printer) heredocLine(s string) {
	p.safe(s)
	if s == "" {
		p.trimLine()
	}
}

// lines splits a multi-line string for a heredoc, which itself implies the
// final newline.
func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func (p *printer) heredoc(depth int, s, suffix string, f bool) {
	p.str("<<-EOT")
	p.forcesNote(f)
	p.nl()
	for _, l := range lines(s) {
		p.indent(depth+1, same)
		p.heredocLine(l)
		p.nl()
	}
	p.indent(depth, same)
	p.str("EOT")
	p.str(suffix)
}

func (p *printer) heredocDiff(depth int, b, a, suffix string, f bool) {
	bl, al := lines(b), lines(a)
	pairs := matchSeq(len(bl), len(al), func(i, j int) bool { return bl[i] == al[j] })
	p.str("<<-EOT")
	p.forcesNote(f)
	p.nl()
	i, j := 0, 0
	for k := 0; k <= len(pairs); k++ {
		ni, nj := len(bl), len(al)
		if k < len(pairs) {
			ni, nj = pairs[k][0], pairs[k][1]
		}
		for ; i < ni; i++ {
			p.indent(depth+1, remove)
			p.heredocLine(bl[i])
			p.nl()
		}
		for ; j < nj; j++ {
			p.indent(depth+1, add)
			p.heredocLine(al[j])
			p.nl()
		}
		if k < len(pairs) {
			p.indent(depth+1, same)
			p.heredocLine(al[j])
			p.nl()
			i++
			j++
		}
	}
	p.indent(depth, same)
	p.str("EOT")
	p.str(suffix)
}

// keysOfBoth is the sorted union of the keys of a map's value before and
// after a change.
func keysOfBoth(b, a map[string]cty.Value) []string {
	keys := make([]string, 0, len(b)+len(a))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
