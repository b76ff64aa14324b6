//go:build wasip1 && !mcp_wasm_preinit

package mcp

// checkEagerly: in a component that starts Go in every instance, a call
// derives only its own tool's schemas; the build has already checked them
// all natively.
const checkEagerly = false
