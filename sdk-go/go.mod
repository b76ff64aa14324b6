module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go

go 1.25
