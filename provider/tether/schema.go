package tether

import (
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

const (
	defaultFilePermission = "0644"
	defaultCharacters     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	maxRandomLength       = 4096
	maxDelayMS            = 600_000
)

func fileResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "A file on the local filesystem, written with the given content and permission.",
		Attributes: map[string]*provider.Attribute{
			"path": {
				Type:        cty.String,
				Required:    true,
				Description: "Path of the file, relative to the working directory unless absolute. Missing parent directories are created. Changing it replaces the file.",
			},
			"content": {
				Type:        cty.String,
				Required:    true,
				Description: "Content of the file.",
			},
			"file_permission": {
				Type:        cty.String,
				Optional:    true,
				Computed:    true,
				Description: "Permission bits of the file as an octal string, such as \"0600\". Defaults to \"0644\".",
			},
			"sha256": {
				Type:        cty.String,
				Computed:    true,
				Description: "Hex-encoded SHA-256 digest of the file content.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "The path, as given.",
			},
		},
	}}
}

func fileDataSourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "Reads a file from the local filesystem.",
		Attributes: map[string]*provider.Attribute{
			"path": {
				Type:        cty.String,
				Required:    true,
				Description: "Path of the file to read, relative to the working directory unless absolute.",
			},
			"content": {
				Type:        cty.String,
				Computed:    true,
				Description: "Content of the file.",
			},
			"sha256": {
				Type:        cty.String,
				Computed:    true,
				Description: "Hex-encoded SHA-256 digest of the file content.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "The path, as given.",
			},
		},
	}}
}

func randomResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "A random string, generated once and kept until something forces a new one.",
		Attributes: map[string]*provider.Attribute{
			"length": {
				Type:        cty.Number,
				Required:    true,
				Description: "Number of characters to generate, from 1 to 4096. Changing it generates a new string.",
			},
			"characters": {
				Type:        cty.String,
				Optional:    true,
				Computed:    true,
				Description: "Characters to draw from. Defaults to the 62 ASCII letters and digits. Changing it generates a new string.",
			},
			"keepers": {
				Type:        cty.Map(cty.String),
				Optional:    true,
				Description: "Arbitrary values whose change generates a new string.",
			},
			"result": {
				Type:        cty.String,
				Computed:    true,
				Description: "The generated string.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "Random identifier assigned at creation.",
			},
		},
	}}
}

func valueResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Block: &provider.Block{
		Description: "Holds a value in state, like Terraform's terraform_data: output follows input, and a changed input updates it in place.",
		Attributes: map[string]*provider.Attribute{
			"input": {
				Type:        cty.DynamicPseudoType,
				Optional:    true,
				Description: "Any value.",
			},
			"output": {
				Type:        cty.DynamicPseudoType,
				Computed:    true,
				Description: "The input value, known at plan time whenever the input is.",
			},
			"delay_ms": {
				Type:        cty.Number,
				Optional:    true,
				Description: "Milliseconds to wait on create and update, from 0 to 600000, to behave like a slow remote API.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "Random identifier assigned at creation.",
			},
		},
	}}
}
