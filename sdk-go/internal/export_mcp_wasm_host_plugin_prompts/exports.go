//go:build wasip1

// Package export_mcp_wasm_host_plugin_prompts implements the `prompts`
// interface the plugin-full world exports, through the functions package
// mcp sets here.
package export_mcp_wasm_host_plugin_prompts

import (
	wit "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_prompts"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// Set by package mcp when it is initialized.
var (
	List func() []wit.PromptDefinition
	Get  func(name string, arguments []witTypes.Tuple2[string, string]) witTypes.Result[wit.PromptResult, wit.ServeError]
)

// ListPrompts returns the plugin's prompts.
func ListPrompts() []wit.PromptDefinition { return List() }

// GetPrompt fills in the prompt name with arguments.
func GetPrompt(name string, arguments []witTypes.Tuple2[string, string]) witTypes.Result[wit.PromptResult, wit.ServeError] {
	return Get(name, arguments)
}
