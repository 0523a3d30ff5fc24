package addr

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Step is one module call in a module instance path.
type Step struct {
	Name string
	Key  cty.Value // cty.NilVal when the call is not repeated
}

// Instance is the parsed address of one resource instance.
type Instance struct {
	Module []Step
	// Resource is `type.name` or `data.type.name`.
	Resource string
	Key      cty.Value // cty.NilVal when the resource is not repeated
}

// KeyString formats an instance key the way addresses show it: `[0]`,
// `["a"]`, or nothing.
func KeyString(k cty.Value) string {
	if k == cty.NilVal || k.IsNull() {
		return ""
	}
	if k.Type() == cty.Number {
		bf := k.AsBigFloat()
		if i, acc := bf.Int64(); acc == 0 {
			return "[" + strconv.FormatInt(i, 10) + "]"
		}
		return "[" + bf.Text('f', -1) + "]"
	}
	return "[" + strconv.Quote(k.AsString()) + "]"
}

// ModulePath formats a module instance path: `module.a["x"].module.b`.
func ModulePath(steps []Step) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString("module.")
		b.WriteString(s.Name)
		b.WriteString(KeyString(s.Key))
	}
	return b.String()
}

// Join prefixes a module instance path to a relative address.
func Join(module, rel string) string {
	if module == "" {
		return rel
	}
	return module + "." + rel
}

func (a Instance) String() string {
	if a.Resource == "" {
		return ModulePath(a.Module) // a whole module instance
	}
	return Join(ModulePath(a.Module), a.Resource+KeyString(a.Key))
}

// Static is the address of the declaration: every key removed.
func (a Instance) Static() string {
	var parts []string
	for _, s := range a.Module {
		parts = append(parts, "module."+s.Name)
	}
	parts = append(parts, a.Resource)
	return strings.Join(parts, ".")
}

// ParseInstance parses an instance address as printed by String.
func ParseInstance(s string) (Instance, error) {
	if plainResource(s) {
		// Nearly every address of a large state or plan: nothing to
		// build but the resource.
		return Instance{Resource: s}, nil
	}
	if t, ok := simpleTraversal(s); ok {
		return FromTraversal(t)
	}
	t, diags := hclsyntax.ParseTraversalAbs([]byte(s), "", hcl.InitialPos)
	if diags.HasErrors() {
		return Instance{}, fmt.Errorf("invalid address %q: %s", s, diags.Errs()[0])
	}
	return FromTraversal(t)
}

// FromTraversal reads an instance address from a traversal such as the
// `from` and `to` of a moved block.
func FromTraversal(t hcl.Traversal) (Instance, error) {
	var a Instance
	names := func(i int) (string, bool) {
		if i >= len(t) {
			return "", false
		}
		switch s := t[i].(type) {
		case hcl.TraverseRoot:
			return s.Name, true
		case hcl.TraverseAttr:
			return s.Name, true
		}
		return "", false
	}
	key := func(i int) (cty.Value, bool) {
		if i >= len(t) {
			return cty.NilVal, false
		}
		if s, ok := t[i].(hcl.TraverseIndex); ok {
			return s.Key, true
		}
		return cty.NilVal, false
	}
	i := 0
	for {
		n, ok := names(i)
		if !ok {
			if i == len(t) && len(a.Module) > 0 {
				// A whole module instance, such as module.net["eu"].
				return a, nil
			}
			return a, fmt.Errorf("invalid address: expected a name")
		}
		if n != "module" {
			break
		}
		name, ok := names(i + 1)
		if !ok {
			return a, fmt.Errorf("invalid address: module needs a name")
		}
		step := Step{Name: name}
		i += 2
		if k, ok := key(i); ok {
			step.Key = k
			i++
		}
		a.Module = append(a.Module, step)
	}
	first, _ := names(i)
	want := 2
	if first == "data" {
		want = 3
	}
	var parts []string
	for j := 0; j < want; j++ {
		n, ok := names(i + j)
		if !ok {
			if len(parts) == 0 && len(a.Module) > 0 {
				// A whole module instance.
				return a, nil
			}
			return a, fmt.Errorf("invalid address: expected a resource type and name")
		}
		parts = append(parts, n)
	}
	i += want
	a.Resource = strings.Join(parts, ".")
	if k, ok := key(i); ok {
		a.Key = k
		i++
	}
	if i != len(t) {
		return a, fmt.Errorf("invalid address: unexpected %T after the resource", t[i])
	}
	return a, nil
}

// Less orders instance addresses as Terraform does (addrs'
// AbsResourceInstance.Less), in plans, JSON state and `state list`: by
// module path, shorter paths first (the root module's instances before any
// module's), then each step by name and key; within a module data sources
// before managed resources, then by type, name and key, numbers by value
// and before strings. Addresses that do not parse sort after those that
// do, by their text.
func Less(a, b string) bool {
	return lessParsed(parseForOrder(a), parseForOrder(b))
}

// Sort sorts s by the address key gives each element, in Less's order.
// It parses each address once, where sorting with Less parses two at
// every comparison: for a plan of thousands of changes, most of the
// sort's time.
func Sort[T any](s []T, key func(T) string) {
	if sortPlain(s, key) {
		return
	}
	type keyed struct {
		key orderKey
		v   T
	}
	ks := make([]keyed, len(s))
	for i, v := range s {
		ks[i] = keyed{parseForOrder(key(v)), v}
	}
	sort.SliceStable(ks, func(i, j int) bool { return lessParsed(ks[i].key, ks[j].key) })
	for i := range ks {
		s[i] = ks[i].v
	}
}

// sortPlain is Sort for addresses of the root module's resources with no
// key and no bracket nor quote in them (a wide configuration's, nearly
// always), ordered by the resource address alone, with elements of two
// words to move rather than a parsed key each; it reports false, leaving
// s as it was, when an address is not of that kind.
func sortPlain[T any](s []T, key func(T) string) bool {
	type plain struct {
		resource string
		v        T
	}
	ps := make([]plain, len(s))
	for i, v := range s {
		in, err := ParseInstance(key(v))
		if err != nil || len(in.Module) > 0 || in.Key != cty.NilVal || strings.ContainsAny(in.Resource, `["`) {
			return false
		}
		ps[i] = plain{in.Resource, v}
	}
	// As lessParsed orders two such addresses: data sources first, then
	// by parts; equal ones keep their order.
	slices.SortStableFunc(ps, func(a, b plain) int {
		if da, db := isData(a.resource), isData(b.resource); da != db {
			if da {
				return -1
			}
			return 1
		}
		return partsCompare(a.resource, b.resource)
	})
	for i := range ps {
		s[i] = ps[i].v
	}
	return true
}

// orderKey is an address as Less compares it.
type orderKey struct {
	text string
	in   Instance
	// res is Split(in.Resource) when it has a bracket or a quote; nil
	// when a dot is all that splits it, as nearly always: it is then
	// compared unsplit (see partsLess), with no list made for each of a
	// plan's addresses.
	res []string
	ok  bool
}

func parseForOrder(s string) orderKey {
	in, err := ParseInstance(s)
	if err != nil {
		return orderKey{text: s}
	}
	k := orderKey{text: s, in: in, ok: true}
	if strings.ContainsAny(in.Resource, `["`) {
		k.res = Split(in.Resource)
	}
	return k
}

func lessParsed(a, b orderKey) bool {
	if !a.ok || !b.ok {
		if a.ok != b.ok {
			return a.ok
		}
		return a.text < b.text
	}
	ia, ib := a.in, b.in
	if len(ia.Module) != len(ib.Module) {
		return len(ia.Module) < len(ib.Module)
	}
	for i := range ia.Module {
		sa, sb := ia.Module[i], ib.Module[i]
		if sa.Name != sb.Name {
			return sa.Name < sb.Name
		}
		if c := compareKeys(sa.Key, sb.Key); c != 0 {
			return c < 0
		}
	}
	if ra, rb := a.res, b.res; ia.Resource != ib.Resource {
		if ra == nil && rb == nil {
			if da, db := isData(ia.Resource), isData(ib.Resource); da != db {
				return da
			}
			return partsLess(ia.Resource, ib.Resource)
		}
		if ra == nil {
			ra = Split(ia.Resource)
		}
		if rb == nil {
			rb = Split(ib.Resource)
		}
		if da, db := ra[0] == "data", rb[0] == "data"; da != db {
			return da
		}
		for i := 0; i < len(ra) && i < len(rb); i++ {
			if ra[i] != rb[i] {
				return ra[i] < rb[i]
			}
		}
		return len(ra) < len(rb)
	}
	return compareKeys(ia.Key, ib.Key) < 0
}

// isData reports whether the first part of a resource address with no
// bracket nor quote is "data".
func isData(r string) bool {
	return r == "data" || strings.HasPrefix(r, "data.")
}

// partsLess is Split(a) before Split(b), part by part and the fewer parts
// first when one's are the other's first, for addresses with no bracket
// nor quote, compared whole: a dot, where a part ends, comes before any
// other byte.
func partsLess(a, b string) bool {
	return partsCompare(a, b) < 0
}

// partsCompare is partsLess as a three-way comparison: -1, 0 or 1.
func partsCompare(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		switch {
		case ca == cb:
			continue
		case ca == '.', cb != '.' && ca < cb:
			return -1
		}
		return 1
	}
	return cmp.Compare(len(a), len(b))
}

// compareKeys orders instance keys: none first, numbers by value, then
// strings.
func compareKeys(a, b cty.Value) int {
	switch {
	case a == cty.NilVal || b == cty.NilVal:
		switch {
		case a == b:
			return 0
		case a == cty.NilVal:
			return -1
		}
		return 1
	case a.Type() == cty.Number && b.Type() == cty.Number:
		return a.AsBigFloat().Cmp(b.AsBigFloat())
	case a.Type() == cty.Number:
		return -1
	case b.Type() == cty.Number:
		return 1
	}
	return strings.Compare(a.AsString(), b.AsString())
}

// Covers reports whether the instance at object falls under the address a
// user gave: the instance itself, every instance of a resource, or
// everything in a module (instance), as Terraform's -target and state
// commands read addresses.
func Covers(given, object string) bool {
	if object == given {
		return true
	}
	if !strings.HasPrefix(object, given) {
		return false
	}
	next := object[len(given)]
	if next == '.' {
		// Only a module (instance) contains other addresses.
		return IsModule(given)
	}
	// An instance of a resource, or of a module call given without its key.
	return next == '['
}

// IsModule reports whether an address names a module or module instance
// rather than a resource within one.
func IsModule(a string) bool {
	parts := Split(a)
	return len(parts) >= 2 && parts[len(parts)-2] == "module"
}

// Split splits an address on the dots outside brackets and quotes,
// dropping instance keys: module.a["x.y"].tether_file.b[0] becomes
// [module a tether_file b].
func Split(a string) []string {
	if !strings.ContainsAny(a, `["`) {
		// No key nor quote to keep a dot: one slice, no copies.
		return strings.Split(a, ".")
	}
	var parts []string
	var cur strings.Builder
	depth, quoted := 0, false
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch {
		case quoted:
			if c == '\\' {
				i++
			} else if c == '"' {
				quoted = false
			}
		case c == '"':
			quoted = true
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '.' && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
		case depth == 0:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

// simpleTraversal reads the addresses state and plans are made of (ASCII
// names; keys that are whole numbers or strings needing no escape) as
// hclsyntax.ParseTraversalAbs reads them, without its lexer: a plan parses
// an address for every instance, several times, and HCL's lexer was most
// of that. Anything else, including every malformed address, is left to
// HCL (ok false), which reads it and says what is wrong.
func simpleTraversal(s string) (hcl.Traversal, bool) {
	t := make(hcl.Traversal, 0, 4)
	for i := 0; ; {
		j := i
		for j < len(s) && isNameByte(s[j], j == i) {
			j++
		}
		if j == i {
			return nil, false
		}
		if len(t) == 0 {
			t = append(t, hcl.TraverseRoot{Name: s[i:j]})
		} else {
			t = append(t, hcl.TraverseAttr{Name: s[i:j]})
		}
		i = j
		if i < len(s) && s[i] == '[' {
			key, n, ok := simpleKey(s[i+1:])
			if !ok {
				return nil, false
			}
			t = append(t, hcl.TraverseIndex{Key: key})
			i += 1 + n
		}
		if i == len(s) {
			return t, true
		}
		if s[i] != '.' {
			return nil, false
		}
		i++
	}
}

// plainResource reports whether s is the address of a root module's
// resource without a key, TYPE.NAME or data.TYPE.NAME in ASCII names, which
// ParseInstance reads as the resource s and nothing else.
func plainResource(s string) bool {
	parts, data := 0, false
	for i := 0; ; i++ {
		j := i
		for j < len(s) && isNameByte(s[j], j == i) {
			j++
		}
		if j == i {
			return false
		}
		if parts == 0 {
			if s[i:j] == "module" {
				return false
			}
			data = s[i:j] == "data"
		}
		parts++
		if j == len(s) {
			break
		}
		if s[j] != '.' {
			return false
		}
		i = j
	}
	if data {
		return parts == 3
	}
	return parts == 2
}

// isNameByte reports whether c may be in an ASCII HCL identifier (first:
// may start one).
func isNameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

// simpleKey reads a key and its closing bracket from the start of s: a
// whole number (HCL's number literal, parsed as HCL parses it) or a
// quoted string of printable ASCII holding no escape or template
// sequence. It returns the key and the bytes read.
func simpleKey(s string) (cty.Value, int, bool) {
	end := strings.IndexByte(s, ']')
	if end < 1 {
		return cty.NilVal, 0, false
	}
	lit := s[:end]
	if lit[0] == '"' {
		if len(lit) < 2 || lit[len(lit)-1] != '"' {
			return cty.NilVal, 0, false
		}
		body := lit[1 : len(lit)-1]
		for k := 0; k < len(body); k++ {
			if c := body[k]; c < ' ' || c > '~' || c == '"' || c == '\\' || c == '$' || c == '%' {
				return cty.NilVal, 0, false
			}
		}
		return cty.StringVal(body), end + 1, true
	}
	for k := 0; k < len(lit); k++ {
		if lit[k] < '0' || lit[k] > '9' {
			return cty.NilVal, 0, false
		}
	}
	v, err := cty.ParseNumberVal(lit)
	if err != nil {
		return cty.NilVal, 0, false
	}
	return v, end + 1, true
}
