//! Any bytes as an incoming stdio line or HTTP body, through the host's
//! JSON-RPC message check.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_wasm_host_fuzzing::messages::check(data);
});
