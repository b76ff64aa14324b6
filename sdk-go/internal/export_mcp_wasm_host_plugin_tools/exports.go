//go:build wasip1

// Package export_mcp_wasm_host_plugin_tools implements the `tools`
// interface the plugin-full world exports: the generated wit_exports package
// calls ListTools and CallTool, which call the functions package mcp sets
// here (package mcp imports wit_exports, so wit_exports cannot import it).
package export_mcp_wasm_host_plugin_tools

import (
	wit "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_types"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// List and Call are set by package mcp when it is initialized.
var (
	List func() []wit.ToolDefinition
	Call func(name, arguments string) witTypes.Result[wit.CallResult, wit.ToolError]
)

// ListTools returns the plugin's tools.
func ListTools() []wit.ToolDefinition { return List() }

// CallTool runs the tool name with arguments, a JSON object.
func CallTool(name, arguments string) witTypes.Result[wit.CallResult, wit.ToolError] {
	return Call(name, arguments)
}
