//! Calls share nothing through memory: the `residue` test plugin fills a
//! static area and freshly grown memory (3 MiB each, larger than the part of
//! a pooled memory slot the engine keeps resident and resets in place) in
//! one call, and the next calls, on fresh instances that reuse the slot,
//! find only zeros in both.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use crate::common::{Server, text};
use serde_json::{Value, json};

const AREA: u64 = 3 << 20;

fn serve() -> (Server, tempfile::TempDir) {
    // One call at a time, so every call lands in the slot the last one used.
    let (dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::RESIDUE],
        "[plugins.residue]\nmax_concurrent_calls = 1\n",
    );
    let server = Server::initialized(&plugins, &["--config", &config], R4);
    (server, dir)
}

fn look(s: &mut Server) -> Value {
    s.call_ok("look", json!({}))["structuredContent"].clone()
}

#[test]
fn no_call_sees_the_bytes_an_earlier_call_left_in_static_or_grown_memory() {
    let (mut s, _dir) = serve();
    assert_eq!(
        look(&mut s),
        json!({"static_nonzero": 0, "grown_nonzero": 0}),
        "a first instance starts zeroed"
    );
    for byte in [0xAB, 0x01, 0xFF] {
        let scribbled = s.call_ok("scribble", json!({ "byte": byte }));
        assert_eq!(
            text(&scribbled),
            format!("scribbled {AREA} + {AREA} bytes"),
            "the scribble itself wrote every byte"
        );
        assert_eq!(
            look(&mut s),
            json!({"static_nonzero": 0, "grown_nonzero": 0}),
            "after scribbling {byte:#x}"
        );
    }
}
