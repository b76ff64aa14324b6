//! The state imports the C and Go SDKs' store API calls: `wasi:keyvalue`'s
//! `store` and `atomics` at `0.2.0-draft2`, added to the SDK's world of the
//! plugin WIT (`mcp-wasm-host:plugin`) whenever this tool reads it.
//!
//! `wit/plugin.wit` does not name them (a plugin WIT release is a contract
//! of its own, and wasi:keyvalue is not part of it): the tool carries the
//! vendored `wit/wasi/keyvalue@0.2.0-draft2` package and merges its two
//! interfaces into the world it generates bindings for and embeds. A
//! component imports them only if the plugin calls the store: the linker
//! drops the bindings nothing calls, and wit-component keeps only the
//! imports the core module has.

use wit_bindgen_core::wit_parser::{CloneMaps, PackageId, Resolve, SourceMap, WorldId};

/// The vendored package's files (all of them: `world.wit` holds the package
/// line, and its worlds name every interface).
const KEYVALUE: &[(&str, &str)] = &[
    (
        "world.wit",
        include_str!("../wit/wasi/keyvalue@0.2.0-draft2/world.wit"),
    ),
    (
        "store.wit",
        include_str!("../wit/wasi/keyvalue@0.2.0-draft2/store.wit"),
    ),
    (
        "atomic.wit",
        include_str!("../wit/wasi/keyvalue@0.2.0-draft2/atomic.wit"),
    ),
    (
        "batch.wit",
        include_str!("../wit/wasi/keyvalue@0.2.0-draft2/batch.wit"),
    ),
    (
        "watch.wit",
        include_str!("../wit/wasi/keyvalue@0.2.0-draft2/watch.wit"),
    ),
];

/// The world merged into the SDK's: the interfaces the store API calls.
const STATE_WORLD: &str = "package mcp-wasm-host:sdk-state;

world state {
    import wasi:keyvalue/store@0.2.0-draft2;
    import wasi:keyvalue/atomics@0.2.0-draft2;
}
";

/// The interfaces added, as components name their imports.
#[cfg(test)]
pub const INTERFACES: [&str; 2] = [
    "wasi:keyvalue/store@0.2.0-draft2",
    "wasi:keyvalue/atomics@0.2.0-draft2",
];

/// Whether `package` is the plugin WIT, whose worlds get the state imports
/// (a plain-WIT component's own package does not).
pub fn applies(resolve: &Resolve, package: PackageId) -> bool {
    let name = &resolve.packages[package].name;
    name.namespace == "mcp-wasm-host" && name.name == "plugin"
}

/// Adds the state imports to `world` of `resolve`.
pub fn add(resolve: &mut Resolve, world: WorldId) -> Result<(), String> {
    let mut files = SourceMap::new();
    for (name, text) in KEYVALUE {
        files.push_str(&format!("wasi/keyvalue@0.2.0-draft2/{name}"), *text);
    }
    let keyvalue = files.parse().map_err(|(_, e)| e.to_string())?;
    resolve.push_group(keyvalue).map_err(|e| format!("{e:#}"))?;
    let state = resolve
        .push_source("sdk-state.wit", STATE_WORLD)
        .map_err(|e| format!("{e:#}"))?;
    let state = resolve
        .select_world(&[state], Some("state"))
        .map_err(|e| format!("{e:#}"))?;
    resolve
        .merge_worlds(state, world, &mut CloneMaps::default())
        .map_err(|e| format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wit;

    /// The interfaces `world` imports, as components name them.
    fn imports(resolve: &Resolve, world: WorldId) -> Vec<String> {
        resolve.worlds[world]
            .imports
            .keys()
            .map(|key| resolve.name_world_key(key))
            .collect()
    }

    #[test]
    fn the_plugin_worlds_import_the_store_and_atomics_and_not_batch() {
        for world in ["plugin", "plugin-full"] {
            let (resolve, id) = wit::load(&wit::tests::repo_wit(), world).unwrap();
            let names = imports(&resolve, id);
            for interface in INTERFACES {
                assert!(names.iter().any(|n| n == interface), "{world}: {names:?}");
            }
            assert!(
                !names.iter().any(|n| n.contains("batch")),
                "{world}: {names:?}"
            );
        }
    }

    #[test]
    fn another_package_keeps_its_own_imports() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("w.wit"),
            "package example:plain;\ninterface greet { hello: func() -> string; }\n\
             world plain { export greet; }\n",
        )
        .unwrap();
        let (resolve, id) = wit::load(dir.path(), "plain").unwrap();
        assert_eq!(imports(&resolve, id), Vec::<String>::new());
    }
}
