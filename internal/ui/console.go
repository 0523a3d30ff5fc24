package ui

import (
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
)

// FormatConsole formats a value as terraform console prints it: lists,
// sets and maps with the conversion that makes them (tolist([...])),
// objects and tuples as literals, two spaces per level, a string with
// newlines as a heredoc.
func FormatConsole(v cty.Value, indent int) string {
	if v.HasMark(marks.Sensitive) {
		return "(sensitive value)"
	}
	v, _ = v.Unmark()
	if !v.IsKnown() {
		return "(known after apply)"
	}
	if v.IsNull() {
		return "null"
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		s := v.AsString()
		if strings.Contains(s, "\n") && !strings.Contains(s, "\nEOT\n") {
			return "<<EOT\n" + strings.TrimSuffix(s, "\n") + "\nEOT"
		}
		return quote(s)
	case ty == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case ty == cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	case ty.IsListType():
		return "tolist(" + consoleSeq(v, indent) + ")"
	case ty.IsSetType():
		return "toset(" + consoleSeq(v, indent) + ")"
	case ty.IsTupleType():
		return consoleSeq(v, indent)
	case ty.IsMapType():
		return "tomap(" + consoleMapping(v, indent) + ")"
	case ty.IsObjectType():
		return consoleMapping(v, indent)
	}
	return v.GoString()
}

func consoleSeq(v cty.Value, indent int) string {
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		n++
		b.WriteString("\n" + strings.Repeat(" ", indent+2))
		b.WriteString(FormatConsole(e, indent+2))
		b.WriteByte(',')
	}
	if n > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent))
	}
	b.WriteByte(']')
	return b.String()
}

func consoleMapping(v cty.Value, indent int) string {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		n++
		b.WriteString("\n" + strings.Repeat(" ", indent+2))
		b.WriteString(quote(k.AsString()))
		b.WriteString(" = ")
		b.WriteString(FormatConsole(e, indent+2))
	}
	if n > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent))
	}
	b.WriteByte('}')
	return b.String()
}
