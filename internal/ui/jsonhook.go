package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/plan"
)

// The lines of operations (refresh_start, apply_complete, ...) are one or
// two a resource, so a wide run's -json wrote hundreds of thousands of
// them through maps and json.Marshal, about sixty allocations each. They
// are appended here as json.Marshal would write those maps: keys in byte
// order, strings escaped as encoding/json escapes them (any string that
// needs an escape goes through json.Marshal itself).

// resourceFields is the resource object of a change or hook.
type resourceFields struct {
	addr, module, resource, typ, name, provider string
	keyKind                                     byte // 0: null, 'n': number, 's': string
	keyNum                                      int64
	keyStr                                      string
}

// resourceOf reads an address into its resource object; typ is the
// resource type when the caller knows it, "" to take it from the address.
func resourceOf(address, typ string) resourceFields {
	r := resourceFields{addr: address, resource: address, typ: typ, provider: impliedProvider(typ)}
	ia, err := addr.ParseInstance(address)
	if err != nil {
		return r
	}
	r.module = addr.ModulePath(ia.Module)
	r.resource = ia.Resource + addr.KeyString(ia.Key)
	rtype, name := typeAndName(ia.Resource)
	r.name = name
	if ia.Key != cty.NilVal && !ia.Key.IsNull() {
		if ia.Key.Type() == cty.Number {
			r.keyKind = 'n'
			r.keyNum, _ = ia.Key.AsBigFloat().Int64()
		} else {
			r.keyKind, r.keyStr = 's', ia.Key.AsString()
		}
	}
	if typ == "" {
		r.typ, r.provider = rtype, impliedProvider(rtype)
	}
	return r
}

func impliedProvider(typ string) string {
	p, _, _ := strings.Cut(typ, "_")
	return p
}

// typeAndName are a resource address's last two parts, without a list of
// its parts when no key or quote can hold a dot.
func typeAndName(resource string) (typ, name string) {
	if !strings.ContainsAny(resource, `["`) {
		i := strings.LastIndexByte(resource, '.')
		if i < 0 {
			return "", resource
		}
		rest := resource[:i]
		return rest[strings.LastIndexByte(rest, '.')+1:], resource[i+1:]
	}
	parts := addr.Split(resource)
	if len(parts) < 2 {
		return "", parts[len(parts)-1]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// object is the resource object as the map json.Marshal writes.
func (r resourceFields) object() map[string]any {
	m := map[string]any{"addr": r.addr, "module": r.module, "resource": r.resource, "resource_type": r.typ,
		"resource_name": r.name, "resource_key": nil, "implied_provider": r.provider}
	switch r.keyKind {
	case 'n':
		m["resource_key"] = r.keyNum
	case 's':
		m["resource_key"] = r.keyStr
	}
	return m
}

// appendJSON appends the resource object as json.Marshal writes object().
func (r resourceFields) appendJSON(b []byte) []byte {
	b = appendJSONString(append(b, `{"addr":`...), r.addr)
	b = appendJSONString(append(b, `,"implied_provider":`...), r.provider)
	b = appendJSONString(append(b, `,"module":`...), r.module)
	b = appendJSONString(append(b, `,"resource":`...), r.resource)
	b = append(b, `,"resource_key":`...)
	switch r.keyKind {
	case 'n':
		b = strconv.AppendInt(b, r.keyNum, 10)
	case 's':
		b = appendJSONString(b, r.keyStr)
	default:
		b = append(b, "null"...)
	}
	b = appendJSONString(append(b, `,"resource_name":`...), r.name)
	b = appendJSONString(append(b, `,"resource_type":`...), r.typ)
	return append(b, '}')
}

// opLine is one line about one resource: an operation's, whose object
// is its "hook", or a plan's change or drift, whose object is its
// "change".
type opLine struct {
	level, typ string
	message    []byte
	object     string // "hook" or "change"
	address    string
	rtype      string // the resource type if known
	action     string // "" for a refresh's hook, which has none
	elapsed    int
	timed      bool // the object has elapsed_seconds
	id         string
	importing  string
	imports    bool // the object has importing
	reason     string
}

// appendOpLine appends l as writeLine writes its level, message, type and
// {object: ...}, without the newline: the object's keys are those of a
// hook and a change, in byte order.
func appendOpLine(b []byte, now time.Time, l opLine) []byte {
	b = appendJSONString(append(b, `{"@level":`...), l.level)
	b = appendJSONString(append(b, `,"@message":`...), l.message)
	b = append(b, `,"@module":"tether.ui","@timestamp":"`...)
	b = now.UTC().AppendFormat(b, timestampLayout)
	b = append(append(append(b, `","`...), l.object...), `":{`...)
	if l.action != "" {
		b = append(appendJSONString(append(b, `"action":`...), l.action), ',')
	}
	if l.timed {
		b = append(strconv.AppendInt(append(b, `"elapsed_seconds":`...), int64(l.elapsed), 10), ',')
	}
	if l.id != "" {
		b = append(appendJSONString(append(b, `"id_key":"id","id_value":`...), l.id), ',')
	}
	if l.imports {
		b = append(appendJSONString(append(b, `"importing":{"id":`...), l.importing), '}', ',')
	}
	if l.reason != "" {
		b = append(appendJSONString(append(b, `"reason":`...), l.reason), ',')
	}
	b = resourceOf(l.address, l.rtype).appendJSON(append(b, `"resource":`...))
	b = appendJSONString(append(b, `},"type":`...), l.typ)
	return append(b, '}')
}

// timestampLayout is @timestamp's, Terraform's.
const timestampLayout = "2006-01-02T15:04:05.000000Z07:00"

// appendJSONString appends s quoted as json.Marshal quotes a string.
func appendJSONString[T ~string | ~[]byte](b []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(string(s))
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// eventType is the type of an operation's line: kind is "apply" or
// "ephemeral_op".
func eventType(ephemeral bool, phase plan.Phase) string {
	switch {
	case ephemeral && phase == plan.Started:
		return "ephemeral_op_start"
	case ephemeral:
		return "ephemeral_op_complete"
	case phase == plan.Started:
		return "apply_start"
	}
	return "apply_complete"
}
