//! Input schemas and call arguments through the host's argument check.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_wasm_host::fuzzing::arguments::check(data);
});
