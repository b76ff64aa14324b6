//! Input schemas and call arguments through the host's argument check.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_wasm_host_fuzzing::arguments::check(data);
});
