//go:build wasip1

// Package export_mcp_wasm_host_plugin_resources implements the `resources`
// interface the plugin-full world exports, through the functions package
// mcp sets here (as export_mcp_wasm_host_plugin_tools does for `tools`).
package export_mcp_wasm_host_plugin_resources

import (
	wit "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_resources"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// Set by package mcp when it is initialized.
var (
	List      func() []wit.ResourceDefinition
	Templates func() []wit.ResourceTemplate
	Views     func() []wit.ToolView
	Read      func(uri string) witTypes.Result[[]wit.ResourceContents, wit.ServeError]
)

// ListResources returns the plugin's resources.
func ListResources() []wit.ResourceDefinition { return List() }

// ListResourceTemplates returns the plugin's resource templates.
func ListResourceTemplates() []wit.ResourceTemplate { return Templates() }

// ListToolViews returns the tools that have an interactive view.
func ListToolViews() []wit.ToolView { return Views() }

// ReadResource reads the resource uri.
func ReadResource(uri string) witTypes.Result[[]wit.ResourceContents, wit.ServeError] {
	return Read(uri)
}
