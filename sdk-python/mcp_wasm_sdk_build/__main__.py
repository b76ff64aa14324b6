"""`python -m mcp_wasm_sdk_build PLUGIN_DIR -o OUT.wasm`."""

from mcp_wasm_sdk_build import main

main()
