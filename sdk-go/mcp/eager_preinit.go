//go:build wasip1 && mcp_wasm_preinit

package mcp

// checkEagerly: in a pre-initialized component (scripts/build-go-plugin.sh
// builds with the tag mcp_wasm_preinit before it runs Wizer), init runs
// once, at build time, so every tool's schemas are derived there and every
// instance starts with them.
const checkEagerly = true
