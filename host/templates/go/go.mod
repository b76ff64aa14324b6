module @NAME@

go 1.25

require github.com/mcp-wasm-host/mcp-wasm-host/sdk-go v@VERSION@
@GO_REPLACE@
