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
