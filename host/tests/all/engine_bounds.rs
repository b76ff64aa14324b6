//! The policy's `memories`, `tables` and `instances` are the limits a
//! component meets, not the engine's pool: a generic component (WAT, built
//! here) with more memories, tables or core instances than wasmtime's pool
//! used to hold per component loads and serves under a policy that allows
//! them, and a policy that allows fewer stops its call naming the key. A
//! value over what the pool holds is refused when the policy is read
//! (`host/src/config/tests.rs`).
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{serve_alone, text};

/// A component with `count` instances of the core module `filler`, and the
/// module that implements its one function, `fine`, which returns 42 (`{"result":42}` in its text; one
/// memory, no table).
fn component(filler: &str, count: usize) -> Vec<u8> {
    let mut wat = format!("(component\n  (core module $filler {filler})\n");
    for i in 0..count {
        wat += &format!("  (core instance $f{i} (instantiate $filler))\n");
    }
    wat += r#"  (core module $main
    (memory (export "memory") 1)
    (func (export "fine") (result i32) i32.const 42))
  (core instance $main (instantiate $main))
  (func (export "fine") (result u32) (canon lift (core func $main "fine"))))"#;
    wat::parse_str(&wat).unwrap()
}

/// The result of calling `fine` on `component` under `policy` (a
/// `[plugins.wide]` section's keys).
fn call_fine(component: &[u8], policy: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.wasm");
    std::fs::write(&file, component).unwrap();
    let (mut server, _plugins) = serve_alone(&file, &format!("[plugins.wide]\n{policy}"));
    let response = server.call("fine", json!({}));
    response
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{policy}: {response}"))
}

#[test]
fn a_component_s_memories_tables_and_instances_are_limited_by_the_policy_alone() {
    // 12 memories (11 fillers and `fine`'s): over the pool's old 8 per
    // component; 20 tables: over its old 16; 70 core instances: over its
    // old 64 (and over the default `instances = 64`).
    let memories = component(r#"(memory 1)"#, 11);
    let tables = component(r#"(table 1 funcref)"#, 20);
    let instances = component("", 70);

    for (what, component, policy, limit) in [
        ("12 memories", &memories, "", None),
        (
            "12 memories",
            &memories,
            "memories = 10\n",
            Some("memories"),
        ),
        ("20 tables", &tables, "", None),
        ("20 tables", &tables, "tables = 10\n", Some("tables")),
        ("71 core instances", &instances, "", Some("instances")),
        ("71 core instances", &instances, "instances = 100\n", None),
    ] {
        let result = call_fine(component, policy);
        let said = text(&result);
        match limit {
            None => {
                assert_ne!(
                    result["isError"],
                    json!(true),
                    "{what}, {policy:?}: {result}"
                );
                assert_eq!(said, r#"{"result":42}"#, "{what}, {policy:?}");
            }
            Some(key) => {
                assert_eq!(
                    result["isError"],
                    json!(true),
                    "{what}, {policy:?}: {result}"
                );
                assert!(
                    said.contains("plugin \"wide\"") && said.contains(&format!("`{key}` limit")),
                    "{what}, {policy:?}: {said}"
                );
                assert!(
                    said.contains(&format!("plugins.wide.{key}")),
                    "{what}: {said}"
                );
            }
        }
    }
}
