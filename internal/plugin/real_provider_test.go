package plugin

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

// awsProvider is a real provider built by HashiCorp (SDKv2 and the plugin
// framework behind a protocol 5 mux), where this machine has one.
var awsProvider = filepath.FromSlash("/opt/tf-plugins/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64/terraform-provider-aws_v5.100.0_x5")

func TestRealProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: the AWS provider takes seconds to load its schema")
	}
	if _, err := os.Stat(awsProvider); err != nil {
		t.Skipf("no AWS provider binary: %v", err)
	}
	t.Parallel()
	// Started twice with a schema cache: the provider declares its schema
	// call optional, so the second start reads the first one's copy, and
	// the test goes on with that.
	cache := t.TempDir()
	fresh := startCached(t, awsProvider, cache)
	c := startCached(t, awsProvider, cache)
	if fresh.schemaFromCache || !c.schemaFromCache {
		t.Errorf("schema from cache: first start %v, second %v", fresh.schemaFromCache, c.schemaFromCache)
	}
	if c.protocolVersion != 5 {
		t.Fatalf("negotiated protocol %d, want 5", c.protocolVersion)
	}
	sch, diags := c.GetSchema()
	noErrors(t, "schema", diags)
	want, _ := fresh.GetSchema()
	compareBlock(t, "provider", sch.Provider, want.Provider)
	compareSchemas(t, "resource", sch.Resources, want.Resources)
	compareSchemas(t, "data source", sch.DataSources, want.DataSources)
	fresh.Close()

	// A provider function, routed by the mux without a schema call.
	if f, ok, err := sch.Functions.Get("arn_parse"); !ok || err != nil {
		t.Errorf("no arn_parse among %v: %v", sch.Functions.Names(), err)
	} else if arn, err := f.Call([]cty.Value{cty.StringVal("arn:aws:iam::444455556666:role/example")}); err != nil {
		t.Errorf("arn_parse: %v", err)
	} else if got := arn.GetAttr("account_id"); !got.RawEquals(cty.StringVal("444455556666")) {
		t.Errorf("arn_parse account_id %#v", got)
	}
	if sch.Resources.Len() < 1000 || sch.DataSources.Len() < 500 {
		t.Errorf("%d resource and %d data source types", sch.Resources.Len(), sch.DataSources.Len())
	}
	typ := func(name string) *provider.ResourceSchema {
		t.Helper()
		rs, ok, err := sch.Resources.Get(name)
		if err != nil || !ok {
			t.Fatalf("resource type %s: %v", name, err)
		}
		return rs
	}
	inst := typ("aws_instance")
	if inst.Block.BlockTypes["ebs_block_device"] == nil || inst.Block.BlockTypes["ebs_block_device"].Nesting != provider.NestingSet {
		t.Fatalf("aws_instance.ebs_block_device not a set block")
	}
	if a := typ("aws_sqs_queue").Block.Attributes["delay_seconds"]; a == nil || a.Type != cty.Number || !a.Optional {
		t.Errorf("aws_sqs_queue.delay_seconds: %+v", a)
	}

	// Validation: an SDKv2 validator's error points at its attribute.
	queue := typ("aws_sqs_queue").Block
	bad := objectWith(queue, map[string]cty.Value{"name": cty.StringVal("tether-test"), "delay_seconds": cty.NumberIntVal(99999)})
	providercheck.WantOnlyError(t, c.ValidateResourceConfig("aws_sqs_queue", bad), cty.GetAttrPath("delay_seconds"), "delay_seconds")

	// Configuration that needs no network, then a plan, which SDKv2 makes
	// locally for a new queue.
	ctx := context.Background()
	pcfg := objectWith(sch.Provider, map[string]cty.Value{
		"region":                      cty.StringVal("us-east-1"),
		"access_key":                  cty.StringVal("AKIAIOSFODNN7EXAMPLE"),
		"secret_key":                  cty.StringVal("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
		"skip_credentials_validation": cty.True,
		"skip_requesting_account_id":  cty.True,
		"skip_metadata_api_check":     cty.StringVal("true"),
		"skip_region_validation":      cty.True,
	})
	noErrors(t, "validate provider", c.ValidateProviderConfig(pcfg))
	noErrors(t, "configure", c.ConfigureProvider(ctx, pcfg))
	cfg := objectWith(queue, map[string]cty.Value{"name": cty.StringVal("tether-test")})
	noErrors(t, "validate", c.ValidateResourceConfig("aws_sqs_queue", cfg))
	plan := c.PlanResourceChange(ctx, provider.PlanRequest{TypeName: "aws_sqs_queue", PriorState: cty.NullVal(queue.ImpliedType()), ProposedNewState: cfg, Config: cfg})
	noErrors(t, "plan", plan.Diagnostics)
	if got := plan.PlannedState.GetAttr("name"); !got.RawEquals(cty.StringVal("tether-test")) {
		t.Errorf("planned name %#v", got)
	}
	if arn := plan.PlannedState.GetAttr("arn"); arn.IsKnown() {
		t.Errorf("planned arn %#v, want unknown", arn)
	}
}

func startCached(t *testing.T, path, cacheDir string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := StartWith(ctx, path, StartOptions{SchemaCacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// objectWith is a configuration of block b with the given attributes set
// and everything else absent, as Terraform would send it.
func objectWith(b *provider.Block, set map[string]cty.Value) cty.Value {
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		vals[name] = cty.NullVal(a.Type)
	}
	for name, nb := range b.BlockTypes {
		ty := b.ImpliedType().AttributeType(name)
		switch {
		case nb.Nesting == provider.NestingList && ty.IsListType():
			vals[name] = cty.ListValEmpty(ty.ElementType())
		case nb.Nesting == provider.NestingSet:
			vals[name] = cty.SetValEmpty(ty.ElementType())
		case nb.Nesting == provider.NestingMap && ty.IsMapType():
			vals[name] = cty.MapValEmpty(ty.ElementType())
		default:
			vals[name] = cty.NullVal(ty)
		}
	}
	for name, v := range set {
		vals[name] = v
	}
	return cty.ObjectVal(vals)
}
