//! A guest's `call-result` or `tool-error` through the conversions to the
//! `CallToolResult` a client reads.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_wasm_host_fuzzing::results::check(data);
});
