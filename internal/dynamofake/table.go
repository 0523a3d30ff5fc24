package dynamofake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// DynamoDB's limits on what the fake serves.
const (
	maxItemSize    = 400 << 10
	maxHashKeySize = 2048
)

// table is one table: its hash key and items, each kept as it arrived.
type table struct {
	name    string
	hashKey string
	keyType string // "S" or "B"
	created time.Time
	items   map[string]item // by the hash key's value
	tags    map[string]string
}

// item is an item as DynamoDB's JSON has it: attribute name to a value
// of one type, {"S": "..."}, {"B": "base64"}...
type item map[string]attrValue

type attrValue map[string]json.RawMessage

var tableNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// CreateTable makes an empty table whose hash key is the attribute
// hashKey of type keyType, "S" (string) or "B" (binary).
func (s *Server) CreateTable(name, hashKey, keyType string) error {
	if len(name) < 3 || len(name) > 255 || !tableNamePattern.MatchString(name) {
		return fmt.Errorf("dynamofake: %q is not a table name: 3 to 255 letters, digits, '_', '-' and '.'", name)
	}
	if hashKey == "" || (keyType != "S" && keyType != "B") {
		return fmt.Errorf("dynamofake: table %q: the hash key needs a name and the type S or B", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tables[name]; ok {
		return fmt.Errorf("dynamofake: table %q already exists", name)
	}
	s.tables[name] = &table{name: name, hashKey: hashKey, keyType: keyType, created: time.Now(), items: map[string]item{}, tags: map[string]string{}}
	return nil
}

// Item returns the item of a table with a string hash key, as DynamoDB's
// JSON with its attributes in name order, and whether it is there.
func (s *Server) Item(tableName, key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[tableName]
	if t == nil || t.keyType != "S" {
		return "", false
	}
	it, ok := t.items[key]
	if !ok {
		return "", false
	}
	b, _ := json.Marshal(it)
	return string(b), true
}

// params checks that in has only the parameters the fake serves for op,
// and returns its table, which must exist.
func (s *Server) params(op string, in map[string]json.RawMessage, allowed ...string) (*table, error) {
	var unknown []string
	for name := range in {
		if name != "TableName" && !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, validation("dynamofake does not serve the parameters %s of %s", strings.Join(unknown, ", "), op)
	}
	var name string
	if raw, ok := in["TableName"]; !ok || json.Unmarshal(raw, &name) != nil {
		return nil, validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	if len(name) < 3 || len(name) > 255 {
		return nil, validation("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must have length between 3 and 255", name)
	}
	if !tableNamePattern.MatchString(name) {
		return nil, validation("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", name)
	}
	t := s.tables[name]
	if t == nil {
		if op == "DescribeTable" {
			return nil, &apiError{status: 400, code: "ResourceNotFoundException", message: "Requested resource not found: Table: " + name + " not found"}
		}
		return nil, &apiError{status: 400, code: "ResourceNotFoundException", message: "Requested resource not found"}
	}
	return t, nil
}

// noReturnValues refuses ReturnValues other than NONE, which the fake does
// not serve.
func noReturnValues(op string, in map[string]json.RawMessage) error {
	raw, ok := in["ReturnValues"]
	if !ok {
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || v != "NONE" {
		return validation("dynamofake serves %s with ReturnValues NONE only", op)
	}
	return nil
}

func (s *Server) getItem(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, k, err := s.keyParams("GetItem", in, "ConsistentRead", "ProjectionExpression")
	if err != nil {
		return nil, err
	}
	names, err := projection(in)
	if err != nil {
		return nil, err
	}
	if it, ok := t.items[k]; ok {
		if names != nil {
			out := item{}
			for _, n := range names {
				if v, ok := it[n]; ok {
					out[n] = v
				}
			}
			it = out
		}
		return map[string]any{"Item": it}, nil
	}
	return struct{}{}, nil
}

// projection reads a ProjectionExpression of plain attribute names
// ("LockID, Digest", as Terraform's s3 backend sends); nil when there is
// none. Paths, placeholders and the rest are refused.
func projection(in map[string]json.RawMessage) ([]string, error) {
	raw, ok := in["ProjectionExpression"]
	if !ok {
		return nil, nil
	}
	var expr string
	if json.Unmarshal(raw, &expr) != nil {
		return nil, validation("ProjectionExpression must be a string")
	}
	var names []string
	for _, n := range strings.Split(expr, ",") {
		n = strings.TrimSpace(n)
		if !attrNamePattern.MatchString(n) {
			return nil, validation("dynamofake serves a ProjectionExpression of plain attribute names only, not %q", expr)
		}
		names = append(names, n)
	}
	return names, nil
}

var (
	attrNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// notExistsPattern is the one ConditionExpression the fake serves:
	// attribute_not_exists(NAME), the create-only put of a lock.
	notExistsPattern = regexp.MustCompile(`^\s*attribute_not_exists\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
)

// condition reads a PutItem ConditionExpression: the attribute that must
// not exist in the item replaced, "" when there is no condition.
func condition(in map[string]json.RawMessage) (string, error) {
	raw, ok := in["ConditionExpression"]
	if !ok {
		return "", nil
	}
	var expr string
	if json.Unmarshal(raw, &expr) != nil {
		return "", validation("ConditionExpression must be a string")
	}
	m := notExistsPattern.FindStringSubmatch(expr)
	if m == nil {
		return "", validation("dynamofake serves the ConditionExpression attribute_not_exists(NAME) only, not %q", expr)
	}
	return m[1], nil
}

// keyParams checks the parameters of an operation on one item by its Key,
// and returns its table and the key's value.
func (s *Server) keyParams(op string, in map[string]json.RawMessage, allowed ...string) (*table, string, error) {
	t, err := s.params(op, in, append(allowed, "Key")...)
	if err != nil {
		return nil, "", err
	}
	if err := noReturnValues(op, in); err != nil {
		return nil, "", err
	}
	k, err := t.key(in["Key"])
	return t, k, err
}

func (s *Server) putItem(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.params("PutItem", in, "Item", "ReturnValues", "ConditionExpression")
	if err != nil {
		return nil, err
	}
	mustNotExist, err := condition(in)
	if err != nil {
		return nil, err
	}
	if err := noReturnValues("PutItem", in); err != nil {
		return nil, err
	}
	var it item
	if raw, ok := in["Item"]; !ok || json.Unmarshal(raw, &it) != nil || it == nil {
		return nil, validation("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
	}
	size := 0
	for name, v := range it {
		n, err := v.size()
		if err != nil {
			return nil, err
		}
		size += len(name) + n
	}
	kv, ok := it[t.hashKey]
	if !ok {
		return nil, validation("One or more parameter values were invalid: Missing the key %s in the item", t.hashKey)
	}
	if typ := kv.typ(); typ != t.keyType {
		return nil, validation("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", t.hashKey, t.keyType, typ)
	}
	k, err := t.keyValue(kv)
	if err != nil {
		return nil, err
	}
	if size > maxItemSize {
		return nil, validation("Item size has exceeded the maximum allowed size")
	}
	if old, ok := t.items[k]; ok && mustNotExist != "" {
		if _, has := old[mustNotExist]; has {
			return nil, &apiError{status: 400, code: "ConditionalCheckFailedException", message: "The conditional request failed"}
		}
	}
	t.items[k] = it
	return struct{}{}, nil
}

func (s *Server) deleteItem(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, k, err := s.keyParams("DeleteItem", in, "ReturnValues")
	if err != nil {
		return nil, err
	}
	delete(t.items, k)
	return struct{}{}, nil
}

func (s *Server) describeTable(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.params("DescribeTable", in)
	if err != nil {
		return nil, err
	}
	return map[string]any{"Table": s.description(t)}, nil
}

// key checks a request's Key against the table's key schema and returns
// the key's value.
func (t *table) key(raw json.RawMessage) (string, error) {
	var key item
	if raw == nil || json.Unmarshal(raw, &key) != nil {
		return "", validation("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	v, ok := key[t.hashKey]
	if len(key) != 1 || !ok || v.typ() != t.keyType {
		return "", validation("The provided key element does not match the schema")
	}
	return t.keyValue(v)
}

// keyValue is the value of the hash key attribute v, of the table's type,
// checked as DynamoDB checks keys.
func (t *table) keyValue(v attrValue) (string, error) {
	var k string
	if err := json.Unmarshal(v[t.keyType], &k); err != nil {
		return "", serialization("the key %s is not a JSON string", t.hashKey)
	}
	if t.keyType == "B" {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return "", serialization("the key %s is not base64: %v", t.hashKey, err)
		}
		k = string(b)
	}
	if k == "" {
		return "", validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", t.hashKey)
	}
	if len(k) > maxHashKeySize {
		return "", validation("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of %d bytes", maxHashKeySize)
	}
	return k, nil
}

func serialization(format string, args ...any) *apiError {
	return &apiError{status: 400, coral: true, code: "SerializationException", message: fmt.Sprintf(format, args...)}
}

// typ is the value's data type, "" when it has not exactly one.
func (v attrValue) typ() string {
	if len(v) != 1 {
		return ""
	}
	for t := range v {
		return t
	}
	return ""
}

// size is the value's size as DynamoDB counts it toward the item limit:
// exact for strings, binaries, numbers and booleans, the length of the
// JSON for sets, lists and maps (more than DynamoDB counts).
func (v attrValue) size() (int, error) {
	switch len(v) {
	case 0:
		return 0, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	case 1:
	default:
		return 0, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	}
	typ := v.typ()
	raw := v[typ]
	switch typ {
	case "S", "N":
		var s string
		if json.Unmarshal(raw, &s) != nil || (typ == "S" && !utf8.ValidString(s)) {
			return 0, serialization("a %s value is not a JSON string", typ)
		}
		return len(s), nil
	case "B":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, serialization("a B value is not a JSON string")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return 0, serialization("a B value is not base64: %v", err)
		}
		return len(b), nil
	case "BOOL", "NULL":
		return 1, nil
	case "SS", "NS", "BS", "L", "M":
		return len(raw), nil
	}
	return 0, validation("Supplied AttributeValue has an unknown datatype %q", typ)
}
