//! JSON through a generic component's JSON → WIT value conversion.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_wasm_host_fuzzing::wit_values::check(data);
});
