//! The guest plugins, built for `wasm32-wasip2` by this crate's build script.
//!
//! Depending on this crate (as the host's dev-dependency does) builds every
//! crate under `plugins/examples/*` and `plugins/testing/*` with
//! `cargo build --profile guest --target wasm32-wasip2` in `target/wasm-plugins`,
//! and copies each component to `target/plugins/examples/<name>.wasm` or
//! `target/plugins/testing/<name>.wasm`, where `<name>` is the crate's
//! directory name. The constants below are absolute paths: one per plugin,
//! named after it in upper snake case (`plugins/testing/panic` → [`PANIC`]),
//! plus each group's directory and list of names.
//!
//! The build script reruns when anything under `plugins/`, `sdk-guest/` or
//! `wit/` changes. If the copies under `target/plugins` are deleted by hand,
//! touch `tests/artifacts/build.rs` to get them back.

include!(concat!(env!("OUT_DIR"), "/plugins.rs"));

/// A component of the world `world` of the WIT package `wit` (text), its
/// functions those of the core module `core_wat`, encoded as toolchains do
/// (wit-component, UTF-8 strings, validated). For the tests and benchmarks
/// that need a component of a shape no plugin has. Panics on bad input.
pub fn component_of_wit(wit: &str, world: &str, core_wat: &str) -> Vec<u8> {
    let mut resolve = wit_parser::Resolve::default();
    let package = resolve.push_str("component.wit", wit).expect("valid WIT");
    let world = resolve
        .select_world(&[package], Some(world))
        .expect("the world is in the WIT");
    let mut module = wat::parse_str(core_wat).expect("valid WAT");
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
    )
    .expect("the WIT metadata embeds");
    wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("a core module")
        .validate(true)
        .encode()
        .expect("the module implements the world")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_plugin_file_exists() {
        for (dir, names) in [
            (EXAMPLES_DIR, EXAMPLE_PLUGINS),
            (TESTING_DIR, TESTING_PLUGINS),
        ] {
            for name in names {
                let path = std::path::Path::new(dir).join(format!("{name}.wasm"));
                assert!(path.is_file(), "{} is missing", path.display());
            }
        }
        assert!(std::path::Path::new(PANIC).is_file());
        assert!(TESTING_PLUGINS.contains(&"errors"));
    }
}
