package recorder

import (
	"encoding/json"
	"os"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Entry is one line of the log: one call, with its request and response
// as JSON objects whose keys are the protocol's field names. DynamicValue
// fields (config, prior_state, proposed_new_state, planned_state,
// new_state, ...) hold the value decoded with the schema (unknowns are
// Unknown); bytes fields (private, planned_private, raw_state's json)
// hold the JSON they carry, or {"$base64": ...}; enums their names.
type Entry struct {
	Tool     string         `json:"tool"`
	PID      int            `json:"pid"`
	Seq      int            `json:"seq"` // the call's place in this process's log
	Protocol int            `json:"protocol"`
	Method   string         `json:"method"`
	TypeName string         `json:"type_name,omitempty"`
	Mocked   bool           `json:"mocked,omitempty"` // answered by the wrapper, not the provider
	Request  map[string]any `json:"request,omitempty"`
	Response map[string]any `json:"response,omitempty"`
	Error    string         `json:"error,omitempty"` // the call's gRPC error
}

// unlogged are the methods whose messages the log leaves out, logging the
// call alone: the schema runs to megabytes and says nothing about a
// configuration.
var unlogged = map[string]bool{
	"GetSchema":                  true,
	"GetProviderSchema":          true,
	"GetMetadata":                true,
	"GetFunctions":               true,
	"GetResourceIdentitySchemas": true,
}

// kindOf is the kind of type name a method's messages carry.
func kindOf(method string) kind {
	switch {
	case strings.Contains(method, "DataSource"), strings.Contains(method, "DataResource"):
		return kindDataSource
	case strings.Contains(method, "Ephemeral"):
		return kindEphemeral
	case strings.Contains(method, "ProviderConfig"), method == "Configure", method == "ConfigureProvider":
		return kindProvider
	}
	return kindResource
}

// logFile appends entries to a file, each with one write, so that the
// several processes of a run (a tool may start the provider more than
// once, at once) can share one file: O_APPEND makes each write land whole
// at the end.
type logFile struct {
	mu  sync.Mutex
	f   *os.File
	seq int
}

func openLog(path string) (*logFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &logFile{f: f}, nil
}

func (l *logFile) write(e *Entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.Seq = l.seq
	line, err := json.Marshal(e)
	if err != nil {
		line, _ = json.Marshal(&Entry{Tool: e.Tool, PID: e.PID, Seq: e.Seq, Method: e.Method, Error: "recorder: " + err.Error()})
	}
	l.f.Write(append(line, '\n'))
}

// messageJSON is m as logged. k and typeName say which schema decodes its
// DynamicValues; a message with a type name of its own (an imported
// resource, a move's target) uses that instead.
func (p *proxy) messageJSON(m protoreflect.Message, k kind, typeName string) map[string]any {
	if tn := field(m, "type_name"); tn.IsValid() && tn.String() != "" {
		typeName = tn.String()
	} else if tn := field(m, "target_type_name"); tn.IsValid() && tn.String() != "" {
		typeName = tn.String()
	}
	out := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		switch {
		case fd.IsList():
			list := v.List()
			items := make([]any, list.Len())
			for i := range items {
				items[i] = p.valueJSON(fd, list.Get(i), k, typeName)
			}
			out[name] = items
		case fd.IsMap():
			mm := map[string]any{}
			v.Map().Range(func(key protoreflect.MapKey, mv protoreflect.Value) bool {
				mm[key.String()] = p.valueJSON(fd.MapValue(), mv, k, typeName)
				return true
			})
			out[name] = mm
		default:
			out[name] = p.valueJSON(fd, v, k, typeName)
		}
		return true
	})
	return out
}

func (p *proxy) valueJSON(fd protoreflect.FieldDescriptor, v protoreflect.Value, k kind, typeName string) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		m := v.Message()
		if m.Descriptor().Name() == "DynamicValue" {
			return p.dynamicJSON(fd.Name(), m, k, typeName)
		}
		return p.messageJSON(m, k, typeName)
	case protoreflect.BytesKind:
		return bytesJSON(v.Bytes())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return int(v.Enum())
	}
	return v.Interface()
}

// dynamicJSON decodes a DynamicValue with the schema of (k, typeName).
// Values of no schema the wrapper reads (provider_meta, identities) stay
// as bytes.
func (p *proxy) dynamicJSON(name protoreflect.Name, m protoreflect.Message, k kind, typeName string) any {
	msgpack, js := field(m, "msgpack").Bytes(), field(m, "json").Bytes()
	raw := func() any {
		if len(js) > 0 {
			return bytesJSON(js)
		}
		return bytesJSON(msgpack)
	}
	if name == "provider_meta" || strings.Contains(string(name), "identity") {
		return raw()
	}
	ty, err := p.typeOf(k, typeName)
	if err != nil || ty == cty.NilType {
		return raw()
	}
	v, err := decodeDynamic(msgpack, js, ty)
	if err != nil {
		return map[string]any{"$error": err.Error(), "$raw": raw()}
	}
	return jsonOf(v)
}
