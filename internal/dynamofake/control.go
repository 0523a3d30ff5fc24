package dynamofake

import (
	"encoding/json"
	"sort"
)

// The control plane: what the hashicorp/aws provider calls to create,
// read, tag and delete an aws_dynamodb_table. Tables are the same ones the
// data plane serves. Only what the fake can honour is accepted: a single
// string or binary hash key, no range key, no indexes, no streams.

func (s *Server) createTable(in map[string]json.RawMessage) (any, error) {
	for name := range in {
		switch name {
		case "TableName", "KeySchema", "AttributeDefinitions", "BillingMode", "Tags", "DeletionProtectionEnabled", "TableClass":
		default:
			return nil, validation("dynamofake does not serve the parameter %s of CreateTable", name)
		}
	}
	var req struct {
		TableName string
		KeySchema []struct {
			AttributeName, KeyType string
		}
		AttributeDefinitions []struct {
			AttributeName, AttributeType string
		}
		BillingMode               string
		TableClass                string
		DeletionProtectionEnabled bool
		Tags                      []tag
	}
	raw, _ := json.Marshal(in)
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, serialization("CreateTable: %v", err)
	}
	if len(req.KeySchema) != 1 || req.KeySchema[0].KeyType != "HASH" {
		return nil, validation("dynamofake serves tables with one HASH key and no RANGE key")
	}
	if len(req.AttributeDefinitions) != 1 || req.AttributeDefinitions[0].AttributeName != req.KeySchema[0].AttributeName {
		return nil, validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	if req.BillingMode != "PAY_PER_REQUEST" {
		return nil, validation("dynamofake serves the billing mode PAY_PER_REQUEST only, not %q", req.BillingMode)
	}
	if req.TableClass != "" && req.TableClass != "STANDARD" {
		return nil, validation("dynamofake serves the table class STANDARD only, not %q", req.TableClass)
	}
	if req.DeletionProtectionEnabled {
		return nil, validation("dynamofake does not serve deletion protection")
	}
	s.mu.Lock()
	_, exists := s.tables[req.TableName]
	s.mu.Unlock()
	if exists {
		return nil, &apiError{status: 400, code: "ResourceInUseException", message: "Table already exists: " + req.TableName}
	}
	if err := s.CreateTable(req.TableName, req.KeySchema[0].AttributeName, req.AttributeDefinitions[0].AttributeType); err != nil {
		return nil, validation("%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[req.TableName]
	t.tags = map[string]string{}
	for _, tg := range req.Tags {
		t.tags[tg.Key] = tg.Value
	}
	return map[string]any{"TableDescription": s.description(t)}, nil
}

type tag struct{ Key, Value string }

func (s *Server) deleteTable(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.params("DeleteTable", in)
	if err != nil {
		return nil, err
	}
	delete(s.tables, t.name)
	d := s.description(t)
	d["TableStatus"] = "DELETING"
	return map[string]any{"TableDescription": d}, nil
}

func (s *Server) describeContinuousBackups(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.params("DescribeContinuousBackups", in); err != nil {
		return nil, err
	}
	return map[string]any{"ContinuousBackupsDescription": map[string]any{
		"ContinuousBackupsStatus":        "ENABLED",
		"PointInTimeRecoveryDescription": map[string]any{"PointInTimeRecoveryStatus": "DISABLED"},
	}}, nil
}

func (s *Server) describeTimeToLive(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.params("DescribeTimeToLive", in); err != nil {
		return nil, err
	}
	return map[string]any{"TimeToLiveDescription": map[string]any{"TimeToLiveStatus": "DISABLED"}}, nil
}

// byARN finds the table a tagging request's ResourceArn names.
func (s *Server) byARN(in map[string]json.RawMessage, allowed ...string) (*table, error) {
	for name := range in {
		ok := name == "ResourceArn"
		for _, a := range allowed {
			ok = ok || name == a
		}
		if !ok {
			return nil, validation("dynamofake does not serve the parameter %s", name)
		}
	}
	var arn string
	json.Unmarshal(in["ResourceArn"], &arn)
	for _, t := range s.tables {
		if s.tableARN(t) == arn {
			return t, nil
		}
	}
	return nil, &apiError{status: 400, code: "ResourceNotFoundException", message: "Requested resource not found: ResourcArn: " + arn + " not found"}
}

func (s *Server) listTagsOfResource(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.byARN(in, "NextToken")
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(t.tags))
	for k := range t.tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []tag{}
	for _, k := range keys {
		out = append(out, tag{k, t.tags[k]})
	}
	return map[string]any{"Tags": out}, nil
}

func (s *Server) tagResource(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.byARN(in, "Tags")
	if err != nil {
		return nil, err
	}
	var tags []tag
	json.Unmarshal(in["Tags"], &tags)
	for _, tg := range tags {
		t.tags[tg.Key] = tg.Value
	}
	return struct{}{}, nil
}

func (s *Server) untagResource(in map[string]json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.byARN(in, "TagKeys")
	if err != nil {
		return nil, err
	}
	var keys []string
	json.Unmarshal(in["TagKeys"], &keys)
	for _, k := range keys {
		delete(t.tags, k)
	}
	return struct{}{}, nil
}

// Tables lists the tables' names, sorted.
func (s *Server) Tables() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.tables {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *Server) tableARN(t *table) string {
	return "arn:aws:dynamodb:" + s.opts.Region + ":123456789012:table/" + t.name
}

// description is a table's TableDescription as DescribeTable answers it.
func (s *Server) description(t *table) map[string]any {
	size := 0
	for _, it := range t.items {
		for name, v := range it {
			n, _ := v.size()
			size += len(name) + n
		}
	}
	return map[string]any{
		"TableName":                 t.name,
		"TableArn":                  s.tableARN(t),
		"TableId":                   "00000000-0000-4000-8000-" + t.created.Format("150405000000"),
		"TableStatus":               "ACTIVE",
		"CreationDateTime":          float64(t.created.UnixMilli()) / 1000,
		"KeySchema":                 []map[string]string{{"AttributeName": t.hashKey, "KeyType": "HASH"}},
		"AttributeDefinitions":      []map[string]string{{"AttributeName": t.hashKey, "AttributeType": t.keyType}},
		"BillingModeSummary":        map[string]any{"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": float64(t.created.UnixMilli()) / 1000},
		"ProvisionedThroughput":     map[string]any{"ReadCapacityUnits": 0, "WriteCapacityUnits": 0, "NumberOfDecreasesToday": 0},
		"ItemCount":                 len(t.items),
		"TableSizeBytes":            size,
		"DeletionProtectionEnabled": false,
	}
}
