//go:build wasip1

// Package export_mcp_wasm_host_plugin_completions implements the
// `completions` interface the plugin-full world exports, through the
// function package mcp sets here.
package export_mcp_wasm_host_plugin_completions

import (
	wit "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_completions"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// Set by package mcp when it is initialized.
var Do func(request wit.CompletionRequest) witTypes.Result[wit.Completion, wit.ServeError]

// Complete suggests values for request.
func Complete(request wit.CompletionRequest) witTypes.Result[wit.Completion, wit.ServeError] {
	return Do(request)
}
